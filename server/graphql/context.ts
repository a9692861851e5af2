import DataLoader from "dataloader";
import type { ServiceContext } from "@/server/context";

/**
 * What every resolver gets: the request's service context (`createServiceContext`, with the caller's actor) and
 * the request's DataLoaders. A loader batches the keys asked for in one tick of execution into ONE call of a
 * service batch function (`loadStorefronts`, `loadProductsByStorefront`, ...), which authorizes the caller and
 * scopes its one statement by the caller's account like any service; loaders live and cache for one request.
 */
export type GraphQLContext = {
  service: ServiceContext;
  /**
   * The loader named `name` of this request, made by the first call with `batch`. Name it after the service
   * function and every argument that shapes its answer (`products:{"limit":20}`): keys of one loader share them.
   */
  loader: <V>(
    name: string,
    batch: (keys: readonly string[]) => Promise<ReadonlyArray<V | Error>>,
  ) => DataLoader<string, V>;
};

export function createGraphQLContext(service: ServiceContext): GraphQLContext {
  const loaders = new Map<string, DataLoader<string, unknown>>();
  const context: GraphQLContext = {
    service,
    loader: <V>(name: string, batch: (keys: readonly string[]) => Promise<ReadonlyArray<V | Error>>) => {
      let loader = loaders.get(name) as DataLoader<string, V> | undefined;
      if (!loader) {
        loader = new DataLoader<string, V>(batch);
        loaders.set(name, loader as DataLoader<string, unknown>);
      }
      return loader;
    },
  };
  return context;
}
