import type { Db } from "@/server/db/client";

/**
 * Group commit: while one statement of a kind is in flight on a database, the requests that arrive wait, then
 * go together in the next statement. Under light load each request goes alone and at once; under heavy load
 * one round trip serves dozens of requests. On the machines we measured, a socket write to the database costs
 * more CPU than the statement itself, so this is where the /v1 pipeline's per-request overhead went.
 *
 * `run` gets a batch and answers one result per item, in order. `canJoin` keeps apart items that must not
 * share a statement (e.g. two updates of one row); they wait for the next one. One queue per database handle.
 */
export class GroupCommitQueue<Item, Result> {
  private pending: Array<{
    item: Item;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  }> = [];
  private inFlight = false;

  constructor(
    private readonly db: Db,
    private readonly run: (db: Db, items: Item[]) => Promise<Result[]>,
    private readonly canJoin: (batch: Item[], item: Item) => boolean = () => true,
    private readonly maxBatch = 256,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.inFlight) this.flush();
    });
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch: typeof this.pending = [];
    const rest: typeof this.pending = [];
    const items: Item[] = [];
    for (const entry of this.pending) {
      if (batch.length < this.maxBatch && this.canJoin(items, entry.item)) {
        batch.push(entry);
        items.push(entry.item);
      } else rest.push(entry);
    }
    this.pending = rest;
    this.inFlight = true;
    this.run(this.db, items)
      .then(
        (results) => {
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.inFlight = false;
        this.flush();
      });
  }
}

/** One queue per (database handle, kind of statement). */
export function queueFor<Item, Result>(
  registry: WeakMap<Db, GroupCommitQueue<Item, Result>>,
  db: Db,
  create: (db: Db) => GroupCommitQueue<Item, Result>,
): GroupCommitQueue<Item, Result> {
  let queue = registry.get(db);
  if (!queue) {
    queue = create(db);
    registry.set(db, queue);
  }
  return queue;
}
