"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { type ReactNode, useState } from "react";
import type { ErrorObject } from "@/server/errors";
import type { AppRouter } from "@/server/wiring/trpc";

/** `useTRPC()` in client components: `useQuery(trpc.webhooks.listEndpoints.queryOptions({...}))`. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Server components render the first data; the client refetches only when asked or on an interval.
      queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: false },
      mutations: { retry: false },
    },
  });
}

/** Mounted once by app/dashboard/layout.tsx, so only the dashboard ships the tRPC client. */
export function TrpcProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    // At most the door's TRPC_MAX_BATCH_SIZE calls per request (server/trpc/http.ts).
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc", maxItems: 10 })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/**
 * The catalogue error of a failed call (code, type, param, localized message), as /v1 sends it; null for a
 * network failure. Pages show `message` next to the field `param` names (docs/ui.md, "Errors on pages").
 */
export function catalogueError(error: unknown): ErrorObject | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data = error.data as { error?: ErrorObject | null } | undefined;
  return data?.error ?? null;
}
