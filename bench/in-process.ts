import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { sql } from "drizzle-orm";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { closeDb, dbReady } from "@/server/db/client";
import { handleV1Request } from "@/server/wiring/rest";
import { productCreateBody, storefrontPatchBody } from "./bodies";
import { processCpuMs } from "./lib";

/**
 * The /v1 pipeline without any HTTP server: 32 concurrent loops calling handleV1Request for BENCH_DURATION_SEC,
 * printing requests/s and CPU ms per request of this process. For profiling the service layer with readable
 * names: `node --cpu-prof --import tsx bench/in-process.ts patch`. Set BENCH_ALS=N to run inside N
 * AsyncLocalStorage contexts, as Next runs route handlers (they turn on promise hooks).
 * Needs DATABASE_URL (a scratch database).
 */
const scenario = process.argv[2] ?? "patch";
const seconds = Number(process.env.BENCH_DURATION_SEC ?? 5);

async function main(): Promise<void> {
  const db = await dbReady();
  const developer = await createDeveloper();
  const merchants: Array<{ key: string; storefrontId: string }> = [];
  for (let i = 0; i < 16; i++) {
    const user = await bootstrapUser(developer.key);
    await db.execute(
      sql`update api_keys set rpm = 100000000, daily_limit = 100000000 where account_id = ${user.userId}`,
    );
    await db.execute(sql`update accounts set plan = 'PRO' where id = ${user.userId}`);
    const created = await send("POST", "/v1/storefronts", user.userKey, {
      name: "Bench Bakery",
      currency: "MXN",
      language: "es",
      businessType: "Panadería y Repostería",
      categories: [{ name: "Pan", position: 1 }],
    });
    merchants.push({
      key: user.userKey,
      storefrontId: (JSON.parse(created) as { storefront: { id: string } }).storefront.id,
    });
  }
  let n = 0;
  const one = async () => {
    const merchant = merchants[n++ % merchants.length] as { key: string; storefrontId: string };
    if (scenario === "me") return send("GET", "/v1/me", merchant.key);
    if (scenario === "product")
      return send(
        "POST",
        `/v1/storefronts/${merchant.storefrontId}/products`,
        merchant.key,
        productCreateBody(n),
        { "idempotency-key": `bench-${randomBytes(8).toString("hex")}` },
      );
    return send("PATCH", `/v1/storefronts/${merchant.storefrontId}`, merchant.key, storefrontPatchBody(n));
  };
  for (let i = 0; i < 200; i++) await one();
  const run = async () => {
    const cpu = process.cpuUsage();
    const databaseCpu = processCpuMs("postgres")?.total ?? 0;
    const start = Date.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (Date.now() - start < seconds * 1000) {
          await one();
          done++;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    const databaseUsed = (processCpuMs("postgres")?.total ?? 0) - databaseCpu;
    const elapsed = (Date.now() - start) / 1000;
    process.stdout.write(
      `${scenario}: ${(done / elapsed).toFixed(0)} req/s, cpu ${((used.user + used.system) / 1000 / done).toFixed(3)} ms/req, local postgres ${(databaseUsed / done).toFixed(3)} ms/req\n`,
    );
  };
  // Next runs a route handler inside several AsyncLocalStorage contexts at once; each one adds work to every
  // promise the request creates.
  let wrapped = run;
  for (let i = 0; i < Number(process.env.BENCH_ALS ?? 0); i++) {
    const inner = wrapped;
    wrapped = () => new AsyncLocalStorage().run({}, inner);
  }
  // BENCH_ALLOC_PROFILE=<file>: a sampling profile of every allocation of the measured run (collected objects
  // included, unlike `node --heap-prof`), for chrome://inspect or a script; bytes per request by call site.
  const allocationProfile = process.env.BENCH_ALLOC_PROFILE;
  const session = allocationProfile ? new Session() : null;
  if (session) {
    session.connect();
    await post(session, "HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  await wrapped();
  if (session && allocationProfile) {
    const { profile } = (await post(session, "HeapProfiler.stopSampling", {})) as { profile: unknown };
    writeFileSync(allocationProfile, JSON.stringify(profile));
    session.disconnect();
  }
  await closeDb();
}

function post(session: Session, method: string, params: object): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function send(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await handleV1Request(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
