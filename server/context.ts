import type { Db } from "@/server/db/client";
import type { Language } from "@/server/errors";

/** Who is calling: the API key and its account, as authenticated by the /v1 pipeline (or a dashboard session). */
export type Actor = {
  keyId: string;
  keyName: string | null;
  kind: "developer" | "user";
  accountId: string;
  accountEmail: string;
  accountStatus: "unverified" | "verified" | "cancelled";
  plan: "FREE_NEW" | "FREE_OLD" | "PRO";
  /** The terms-of-service version the account accepted (null: none yet). */
  tosAcceptedVersion: string | null;
  scopes: string[];
  rpm: number;
  /** Requests per UTC day for this key. */
  rpd: number;
};

/** Everything a service function needs besides its input. Time comes from `now()` so tests can move the clock. */
export type ServiceContext = {
  db: Db;
  actor: Actor | null;
  requestId: string;
  language: Language;
  now: () => Date;
  /** What the /v1 pipeline counted for this request's key (absent outside the pipeline or when counting failed open). */
  usage?: { remainingMinute: number; remainingDay: number };
  /** Runs after the surrounding work committed (e.g. wake the delivery worker). Errors are logged, never thrown. */
  afterCommit: (task: () => unknown) => void;
};

export function requireActor(ctx: ServiceContext): Actor {
  if (!ctx.actor) throw new Error("This service function needs an authenticated actor");
  return ctx.actor;
}
