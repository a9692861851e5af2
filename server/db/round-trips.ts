import type { ReservedSql, Sql } from "postgres";
import type { PoolFacts } from "@/server/observability/metrics";
import { SpanKind, SpanStatusCode, tracer, tracingEnabled } from "@/server/observability/tracing";

/**
 * The postgres.js client as drizzle gets it, tuned for round trips. On the machines we measured, each socket
 * write to the database costs more CPU than the statement itself, so the /v1 hot paths are bounded by how many
 * times they talk to PostgreSQL. Two changes, neither visible to the code above:
 *
 * 1. Prepared statements. drizzle runs every query with `prepare: false`, and postgres.js then describes each
 *    parameterized statement before running it: two round trips per query, every time. With `prepare: true`
 *    a statement is described once per connection and later runs in one round trip. The cache is per
 *    connection and bounded by the number of distinct statement shapes; connections are recycled
 *    (postgres.js `max_lifetime`). A pooler in transaction mode needs prepared-statement support (PgBouncer
 *    1.21+), or `DATABASE_PREPARED_STATEMENTS=false`.
 * 2. Pipelined transactions. postgres.js's `begin` waits for BEGIN to come back before the first statement is
 *    sent. This `begin` queues BEGIN on a reserved connection and lets the first statement follow it in the
 *    same socket write (postgres.js writes a connection's queued statements together on the next tick). A
 *    failed BEGIN fails that statement; an error inside rolls back; savepoints nest as drizzle expects. A
 *    caller may also leave its LAST statement un-awaited so that it travels with COMMIT (the /v1 pipeline does
 *    that with the idempotency record); it must then await that statement after the commit, because
 *    PostgreSQL answers COMMIT of a failed transaction with a rollback, not an error.
 */
export function withFewerRoundTrips(
  client: Sql,
  options: { preparedStatements: boolean; poolWaitMs?: number; pool?: PoolFacts | null },
): Sql {
  const poolWaitMs = options.poolWaitMs ?? 0;
  const pool = options.pool ?? null;
  const begin = async (fn: (sql: ReservedSql) => Promise<unknown>) => {
    if (pool) pool.waitingReserve++;
    let connection: ReservedSql;
    try {
      connection = await reserveWithin(client, poolWaitMs);
    } finally {
      if (pool) pool.waitingReserve--;
    }
    if (pool) pool.reserved++;
    const begun = connection.unsafe("begin").execute();
    try {
      const result = await fn(forTransaction(connection, options.preparedStatements));
      await begun;
      await connection.unsafe("commit");
      return result;
    } catch (error) {
      await begun.catch(() => undefined);
      // A transaction whose session ended (the server terminated it, the socket was reset) is already rolled back
      // by PostgreSQL, and a ROLLBACK sent on that connection could wait for ever (docs/operations.md, "Database
      // outages"): none is sent, and the release waits for the socket's close to reach the pool (a timer: Node closes a
      // reset socket after this turn's callbacks), so the pool reconnects it instead of handing the dead socket to
      // the next caller. Otherwise
      // the ROLLBACK gets a bounded wait: past it the connection goes back as it is.
      if (isSessionLost(error)) await new Promise((resolve) => setTimeout(resolve, 1));
      else await settledWithin(connection.unsafe("rollback").execute(), ROLLBACK_WAIT_MS);
      throw error;
    } finally {
      if (pool) pool.reserved--;
      connection.release();
    }
  };
  const unsafe = observed(boundedWait(preparedUnsafe(client, options.preparedStatements), poolWaitMs), pool);
  return new Proxy(client, {
    get: (target, property, receiver) => {
      if (property === "begin") return begin;
      if (property === "unsafe") return unsafe;
      return Reflect.get(target, property, receiver);
    },
  });
}

/** How long a ROLLBACK may take before its connection is handed back anyway. */
const ROLLBACK_WAIT_MS = 5000;

/**
 * The errors that end the database session itself (so the server has rolled its transaction back): the socket
 * closed or reset, or the backend terminated (admin_shutdown, crash_shutdown, cannot_connect_now,
 * connection_failure). A statement timeout (57014) is not one of them: its session lives on in an aborted
 * transaction that needs its ROLLBACK. drizzle wraps the driver's error, hence the walk down `cause`.
 */
const SESSION_LOST = new Set([
  "ECONNRESET",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "57P01",
  "57P02",
  "57P03",
  "08006",
]);

function isSessionLost(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const e = current as { code?: unknown; cause?: unknown };
    if (typeof e.code === "string" && SESSION_LOST.has(e.code)) return true;
    current = e.cause;
  }
  return false;
}

/** Waits for `pending` to settle, at most `ms`; never throws. */
async function settledWithin(pending: PromiseLike<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.resolve(pending).then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Thrown when no pooled connection came free in time (docs/operations.md, "Database outages"). */
export class PoolWaitTimeout extends Error {
  readonly code = "POOL_WAIT_TIMEOUT";
  constructor(ms: number) {
    super(`no database connection came free within ${ms} ms`);
  }
}

/**
 * A pooled statement that has not reached a connection within `ms` is taken out of the pool's queue and fails
 * (postgres.js's `cancel()` of a statement not yet sent: it is never run, so a write cannot land late). While
 * the database is away every connection is reconnecting, and without this bound the queue only grows.
 * Statements already sent are bounded by `statement_timeout` instead.
 */
function boundedWait(unsafe: Sql["unsafe"], ms: number): Sql["unsafe"] {
  if (ms <= 0) return unsafe;
  return ((query, parameters, queryOptions) => {
    const pending = unsafe(query, parameters, queryOptions);
    const timer = setTimeout(() => {
      // `state` is set when the statement is handed to a connection.
      if (!(pending as unknown as { state?: unknown }).state) void pending.cancel();
    }, ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    // `finally` would start the query before drizzle asks for `.values()`: watch it without touching it.
    const settled = pending as unknown as { then: Promise<unknown>["then"] };
    queueMicrotask(() => {
      settled.then(clear, clear);
    });
    return pending;
  }) as Sql["unsafe"];
}

/** `reserve()` within `ms`; a reservation that comes later is handed straight back. */
async function reserveWithin(client: Sql, ms: number): Promise<ReservedSql> {
  const reserving = client.reserve();
  if (ms <= 0) return reserving;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PoolWaitTimeout(ms)), ms);
  });
  try {
    return await Promise.race([reserving, timedOut]);
  } catch (error) {
    if (error instanceof PoolWaitTimeout)
      reserving.then(
        (late) => late.release(),
        () => undefined,
      );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function preparedUnsafe(sql: Sql | ReservedSql, prepared: boolean): Sql["unsafe"] {
  const original = sql.unsafe.bind(sql);
  if (!prepared) return original;
  return ((query, parameters, queryOptions) =>
    original(query, parameters, { ...queryOptions, prepare: true })) as Sql["unsafe"];
}

/** The reserved connection drizzle's transaction runs on: prepared statements, and `savepoint` for nesting. */
function forTransaction(connection: ReservedSql, prepared: boolean): ReservedSql {
  let next = 0;
  const unsafe = observed(preparedUnsafe(connection, prepared), null);
  const savepoint = async (fn: (sql: ReservedSql) => Promise<unknown>) => {
    const name = `s${next++}`;
    await connection.unsafe(`savepoint ${name}`);
    try {
      const result = await fn(connection);
      await connection.unsafe(`release savepoint ${name}`);
      return result;
    } catch (error) {
      await connection.unsafe(`rollback to savepoint ${name}`);
      throw error;
    }
  };
  return Object.assign(connection, { unsafe, savepoint });
}

/**
 * Observability (docs/operations.md, "Observability"): a pooled statement counts as in flight until it settles,
 * and as a waiter while no connection has taken it (postgres.js sets `state` when one does); with tracing on,
 * each statement is a span, a child of the request's or the delivery's. The SQL text is drizzle's, with
 * placeholders: bound values never reach a span.
 */
function observed(unsafe: Sql["unsafe"], pool: PoolFacts | null): Sql["unsafe"] {
  return ((query, parameters, queryOptions) => {
    const pending = unsafe(query, parameters, queryOptions);
    const span = tracingEnabled() ? statementSpan(query) : null;
    if (!pool && !span) return pending;
    const entry = pending as unknown as { state?: unknown };
    pool?.pending.add(entry);
    const done = (error?: unknown) => {
      pool?.pending.delete(entry);
      if (!span) return;
      if (error) {
        const code = (error as { code?: unknown }).code;
        span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === "string" ? code : "failed" });
      }
      span.end();
    };
    // As in boundedWait: watch the statement without starting it before drizzle asks for its rows.
    const settled = pending as unknown as { then: Promise<unknown>["then"] };
    queueMicrotask(() => {
      settled.then(
        () => done(),
        (error: unknown) => done(error ?? "failed"),
      );
    });
    return pending;
  }) as Sql["unsafe"];
}

function statementSpan(query: string) {
  const operation = /^\s*(\w+)/.exec(query)?.[1]?.toLowerCase() ?? "query";
  return tracer().startSpan(`db ${operation}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "db.system.name": "postgresql",
      "db.operation.name": operation,
      "db.query.text": query.length > 2000 ? `${query.slice(0, 2000)}…` : query,
    },
  });
}
