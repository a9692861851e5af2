import { parseArgs } from "node:util";
import { z } from "zod";
import { revokeDeveloperKeyAndCascade } from "@/server/accounts/cancellation";
import { createDeveloperKey, setPlan } from "@/server/accounts/operator";
import { CreateDeveloperKeyInput, Plan } from "@/server/accounts/schema";
import { operatorContext, type ServiceContext } from "@/server/context";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { parseInput, text } from "@/server/validation";
import { JOB_NAMES, runJob } from "@/server/wiring/jobs";

export const CLI_USAGE = `usage: npm run cli -- <command>
  dev-key create --email E [--name N] [--daily-limit 50] [--rpm 60] [--bootstraps-per-day 100]
  dev-key revoke --id key_...
  plan set --email E --plan FREE_NEW|FREE_OLD|PRO
  jobs run <${JOB_NAMES.join("|")}>
  db migrate`;

/** A number option, read through the service's own field (its range and its message). */
function figure(field: z.ZodOptional<z.ZodNumber>) {
  return z.coerce.number().pipe(field.unwrap()).optional();
}

// The service's schema (its ranges live there: server/accounts/schema.ts), under the CLI's option names.
const DEVELOPER_KEY = CreateDeveloperKeyInput.shape;
const DevKeyCreate = z.strictObject({
  email: DEVELOPER_KEY.email,
  name: DEVELOPER_KEY.name,
  "daily-limit": figure(DEVELOPER_KEY.dailyLimit),
  rpm: figure(DEVELOPER_KEY.rpm),
  "bootstraps-per-day": figure(DEVELOPER_KEY.bootstrapDailyLimit),
});
const DevKeyRevoke = z.strictObject({ id: text().regex(/^key_/) });
const PlanSet = z.strictObject({ email: z.email(), plan: Plan });

const OPTION_NAMES = ["email", "name", "daily-limit", "rpm", "bootstraps-per-day", "id", "plan"] as const;

function options(args: string[]): Record<string, string> {
  const { values, positionals } = parseArgs({
    args,
    strict: false,
    allowPositionals: true,
    options: Object.fromEntries(OPTION_NAMES.map((name) => [name, { type: "string" as const }])),
  });
  if (positionals.length > 0)
    throw new AppError("invalid_request", { detail: `Unexpected argument: ${positionals[0]}` });
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
}

/**
 * Runs one CLI command against a database and returns the JSON object it prints (README.md, "Command line").
 * The same function answers the admin endpoint, so a CLI beside a running PGlite server behaves identically.
 * Commands are the operator's: they run in the operator's context (docs/architecture.md, "Actors").
 */
export async function runCommand(db: Db, argv: string[], now: Date = new Date()): Promise<unknown> {
  const ctx = operatorContext({ db, now: () => now });
  try {
    return await runOperatorCommand(ctx, argv);
  } finally {
    ctx.runAfterCommit();
  }
}

async function runOperatorCommand(ctx: ServiceContext, argv: string[]): Promise<unknown> {
  const { db } = ctx;
  const now = ctx.now();
  const [group, action, ...rest] = argv;
  const key = `${group ?? ""} ${action ?? ""}`;
  switch (key) {
    case "dev-key create": {
      const input = parseInput(DevKeyCreate, options(rest), "en");
      const created = await createDeveloperKey(ctx, {
        email: input.email,
        name: input.name,
        dailyLimit: input["daily-limit"],
        rpm: input.rpm,
        bootstrapDailyLimit: input["bootstraps-per-day"],
      });
      return { keyId: created.keyId, key: created.key };
    }
    case "dev-key revoke": {
      const input = parseInput(DevKeyRevoke, options(rest), "en");
      const revoked = await revokeDeveloperKeyAndCascade(ctx, { keyId: input.id });
      return { keyId: revoked.keyId, revoked: true, cancelledAccounts: revoked.cancelledAccounts };
    }
    case "plan set": {
      const input = parseInput(PlanSet, options(rest), "en");
      return setPlan(ctx, { email: input.email, plan: input.plan });
    }
    case "jobs run": {
      const [name, ...extra] = rest;
      if (!name || extra.length > 0) throw new AppError("invalid_request", { detail: CLI_USAGE });
      return runJob(db, name, now);
    }
    case "db migrate":
      // The database was migrated when it was opened (dbReady); report what is applied.
      return { migrated: true };
    default:
      throw new AppError("invalid_request", { detail: CLI_USAGE });
  }
}
