import { readDocsFile } from "../_lib/markdown";

/** The GraphQL schema (docs/schema.graphql, written by `npm run graphql:schema`), linked from the GraphQL guide. */
export function GET(): Response {
  return new Response(readDocsFile("schema.graphql"), {
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
