import { authorizerFor } from "@/server/gate/authorize";
import { SCOPES } from "@/server/gate/scopes";
import type { OperationDefinition } from "@/server/operations";

/**
 * Files (docs/api.md, "Files"): uploading is a catalog write, reading one a catalog read. `importImage` is the MCP
 * tool `marea.import_image` (docs/mcp.md, "Tools"): an upload whose bytes are fetched from a URL.
 */
export const FILE_OPERATIONS = {
  // The bytes go to the file store before the row: no door runs it inside a transaction of its own.
  createFile: { scopes: [SCOPES.catalogWrite], access: "write", commitsOwnWrites: true },
  getFile: { scopes: [SCOPES.catalogRead], access: "read" },
  importImage: { scopes: [SCOPES.catalogWrite], access: "write", oauthScope: "marea.write" },
} as const satisfies Record<string, OperationDefinition>;

/** `authorize` (server/gate/authorize.ts) over these operations: what this feature's services call first. */
export const authorize = authorizerFor(FILE_OPERATIONS);
