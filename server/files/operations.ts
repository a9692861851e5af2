import { SCOPES } from "@/server/accounts/scopes";
import type { OperationDefinition } from "@/server/operations";

/** Files (docs/api.md, "Files"): uploading is a catalog write, reading one a catalog read. */
export const FILE_OPERATIONS = {
  // The bytes go to the file store before the row: no door runs it inside a transaction of its own.
  createFile: { scopes: [SCOPES.catalogWrite], access: "write", commitsOwnWrites: true },
  getFile: { scopes: [SCOPES.catalogRead], access: "read" },
} as const satisfies Record<string, OperationDefinition>;
