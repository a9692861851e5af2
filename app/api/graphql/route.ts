import { yoga } from "@/server/wiring/graphql";

// The GraphQL door (docs/graphql.md): POST for every operation, GET for queries (GraphiQL in a browser outside
// production). Wrapped rather than re-exported: Next type-checks route exports.
export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return yoga.fetch(request);
}

export async function POST(request: Request): Promise<Response> {
  return yoga.fetch(request);
}
