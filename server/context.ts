import type { Db } from "@/server/db/client";
import { AppError, type Language } from "@/server/errors";
import { log } from "@/server/lib/log";

/** The API key a request came with (or that an OAuth grant stands for), with its rate-limit budget. */
export type ActorKey = {
  keyId: string;
  keyName: string | null;
  /** Requests per minute for this key. */
  rpm: number;
  /** Requests per UTC day for this key. */
  rpd: number;
};

/**
 * How the caller reached the service (docs/architecture.md, "Actors"): an API key (`/v1`, GraphQL, MCP with a
 * static key), a dashboard session (cookie), or an OAuth grant (MCP). Rate limits belong to keys: a session has
 * none; an OAuth grant counts in the per-user key its consent created.
 */
export type ActorVia =
  | { type: "api_key"; key: ActorKey }
  | { type: "session"; sessionId: string }
  | { type: "oauth"; clientId: string; tokenId: string; key: ActorKey };

export type ViaType = ActorVia["type"];

/** Who is calling: the account and what it may do, whatever the door. */
export type Actor = {
  accountId: string;
  accountEmail: string;
  /** `developer` for a developer key; `user` for user keys, sessions and OAuth grants. */
  kind: "developer" | "user";
  accountStatus: "unverified" | "verified" | "cancelled";
  plan: "FREE_NEW" | "FREE_OLD" | "PRO";
  /** The terms-of-service version the account accepted (null: none yet). */
  tosAcceptedVersion: string | null;
  scopes: string[];
  via: ActorVia;
};

/** Everything a service function needs besides its input. Time comes from `now()` so tests can move the clock. */
export type ServiceContext = {
  db: Db;
  /** Null for public callers (the storefront page) and for the operator (`operatorContext`). */
  actor: Actor | null;
  /**
   * True only in a context made by `operatorContext` (the CLI and its admin endpoint): the operator, the one
   * caller of the operations marked `operator` (docs/architecture.md, "Actors"). No door sets it.
   */
  readonly operator?: true;
  requestId: string;
  language: Language;
  now: () => Date;
  /** What the /v1 pipeline counted for this request's key (absent outside the pipeline or when counting failed open). */
  usage?: { remainingMinute: number; remainingDay: number };
  /** Runs after the surrounding work committed (e.g. wake the delivery worker). Errors are logged, never thrown. */
  afterCommit: (task: () => unknown) => void;
  /** Runs the tasks `afterCommit` collected; the adapter calls it once its work has committed. */
  runAfterCommit: () => void;
};

export type ServiceContextInit = {
  db: Db;
  actor?: Actor | null;
  requestId?: string;
  language?: Language;
  now?: () => Date;
  usage?: ServiceContext["usage"];
};

/**
 * The one way to build a context, for every adapter (REST, tRPC, GraphQL, MCP, pages), the CLI and tests.
 * Tasks given to `afterCommit` wait until the adapter calls `runAfterCommit()`.
 */
export function createServiceContext(init: ServiceContextInit): ServiceContext {
  const tasks: Array<() => unknown> = [];
  const requestId = init.requestId ?? "req_internal";
  return {
    db: init.db,
    actor: init.actor ?? null,
    requestId,
    language: init.language ?? "en",
    now: init.now ?? (() => new Date()),
    usage: init.usage,
    afterCommit: (task) => {
      tasks.push(task);
    },
    runAfterCommit: () => {
      for (const task of tasks.splice(0)) {
        Promise.resolve()
          .then(task)
          .catch((error: unknown) => log("error", "after-commit task failed", { requestId, error }));
      }
    },
  };
}

/**
 * The operator's context (docs/architecture.md, "Actors"): the command line and the admin endpoint that runs its
 * commands inside a server. No actor, and `operator` set, which `authorizeOperator` requires of the operations
 * marked `operator` (createDeveloperKey, setPlan, revokeDeveloperKey). No door builds one.
 */
export function operatorContext(init: Omit<ServiceContextInit, "actor" | "usage">): ServiceContext {
  return { ...createServiceContext({ ...init, actor: null }), operator: true };
}

/** The same context on another database handle (a transaction): after-commit tasks still go to the caller. */
export function withDb(ctx: ServiceContext, db: Db): ServiceContext {
  return { ...ctx, db };
}

/** The authenticated caller; none is 401 `missing_authorization`. Services call `authorize`, which calls this. */
export function requireActor(ctx: ServiceContext): Actor {
  if (!ctx.actor) throw new AppError("missing_authorization");
  return ctx.actor;
}

/** The API key behind the actor (an API key or an OAuth grant's per-user key), or null for a session. */
export function actorKey(actor: Actor): ActorKey | null {
  return actor.via.type === "session" ? null : actor.via.key;
}
