import { type Db, isDatabaseUnavailable } from "@/server/db/client";

type Pending<Item, Result> = {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
};

/**
 * Group commit: while one statement of a kind is in flight on a database, the requests that arrive wait, then
 * go together in the next statement. Under light load each request goes alone and at once; under heavy load
 * one round trip serves dozens of requests. On the machines we measured, a socket write to the database costs
 * more CPU than the statement itself, so this is where the /v1 pipeline's per-request overhead went.
 *
 * `run` gets a batch and answers one result per item, in order. `canJoin` keeps apart items that must not
 * share a statement (e.g. two updates of one row); they wait for the next one. Each database handle has its
 * own queue.
 */
export class GroupCommit<Item, Result> {
  private readonly queues = new WeakMap<Db, { pending: Array<Pending<Item, Result>>; inFlight: boolean }>();

  constructor(
    private readonly run: (db: Db, items: Item[]) => Promise<Result[]>,
    private readonly canJoin: (batch: Item[], item: Item) => boolean = () => true,
    private readonly maxBatch = 256,
  ) {}

  submit(db: Db, item: Item): Promise<Result> {
    let queue = this.queues.get(db);
    if (!queue) {
      queue = { pending: [], inFlight: false };
      this.queues.set(db, queue);
    }
    const current = queue;
    return new Promise((resolve, reject) => {
      current.pending.push({ item, resolve, reject });
      if (!current.inFlight) this.flush(db, current);
    });
  }

  private flush(db: Db, queue: { pending: Array<Pending<Item, Result>>; inFlight: boolean }): void {
    if (queue.pending.length === 0) return;
    const batch: Array<Pending<Item, Result>> = [];
    const rest: Array<Pending<Item, Result>> = [];
    const items: Item[] = [];
    for (const entry of queue.pending) {
      if (batch.length < this.maxBatch && this.canJoin(items, entry.item)) {
        batch.push(entry);
        items.push(entry.item);
      } else rest.push(entry);
    }
    queue.pending = rest;
    queue.inFlight = true;
    this.run(db, items)
      .then(
        (results) => {
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
          // The database is away: those waiting for the next statement would only wait out another bound
          // (docs/operations.md, "Database outages"), so they fail now too.
          if (isDatabaseUnavailable(error)) for (const entry of queue.pending.splice(0)) entry.reject(error);
        },
      )
      .finally(() => {
        queue.inFlight = false;
        this.flush(db, queue);
      });
  }
}
