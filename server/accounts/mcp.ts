import { z } from "zod";
import { READ_ONLY, toolsFor, writes } from "@/server/mcp/tool";
import { ACCOUNT_OPERATIONS } from "./operations";
import { bootstrapUser } from "./partners";
import { BootstrapUserInput, BootstrapUserResponse, MeDto } from "./schema";
import { getMe } from "./service";

const tool = toolsFor(ACCOUNT_OPERATIONS);

/** Account tools (docs/mcp.md, "Tools"), as over /v1 (docs/api.md, "Accounts and keys"). */
export const accountTools = [
  tool(
    "marea.get_me",
    {
      title: "Who am I",
      description:
        "The key (or connected app) in use: its scopes, the account (email, status, plan and its limits) and the rate-limit budget left.",
      operation: "getMe",
      input: z.strictObject({}),
      output: MeDto,
      annotations: READ_ONLY,
    },
    (ctx) => getMe(ctx),
  ),
  tool(
    "marea.bootstrap_user",
    {
      title: "Bootstrap a merchant account",
      description:
        "Developer keys only. Creates an unverified merchant account for `email` and returns its first user key (shown once); a verification code is mailed to the address.",
      operation: "bootstrapUser",
      input: BootstrapUserInput,
      output: BootstrapUserResponse,
      annotations: writes({ destructiveHint: false, idempotentHint: false, openWorldHint: true }),
    },
    (ctx, input) => bootstrapUser(ctx, input),
  ),
];
