import { env } from "@/server/env";

/**
 * A link into the documentation from the rest of the app: this server's /docs (relative, so it follows the host the
 * reader uses), or `DOCS_URL` when an operator hosts the docs elsewhere (README, "Configuration").
 */
export function docsHref(path = ""): string {
  const { DOCS_URL, APP_URL } = env();
  return DOCS_URL === `${APP_URL.replace(/\/$/, "")}/docs` ? `/docs${path}` : `${DOCS_URL}${path}`;
}
