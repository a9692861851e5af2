import { createHash, randomBytes } from "node:crypto";
import postgres from "postgres";
import type { BenchEnv, BenchRow } from "./env";
import { load, loadPageFloor } from "./lib";
import { createBenchStorefront } from "./storefront";

/**
 * The dashboard's storefront editor (bench/README.md, scenario (ed)): `GET /dashboard/storefronts/{id}` rendered on
 * the server for a signed-in merchant (the session cookie resolved, the shell, the editor's read through the tRPC
 * caller, the form's first section), 32 connections, against the framework floor measured right before it.
 * Target: req/s >= 0.3 of the floor.
 *
 * Set-up: the 200-product storefront of scenario (s) (categories, delivery, branding); its account verified with
 * the current terms accepted, as signing in through the dashboard leaves it, and a session made for it directly in
 * the bench database (a random token; its sha256 stored, as server/sessions/service.ts does).
 */
export async function runStorefrontEditorBench(env: BenchEnv): Promise<BenchRow[]> {
  const { storefrontId } = await createBenchStorefront(env);
  const sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
  const token = randomBytes(32).toString("hex");
  try {
    const [row] = await sql<Array<{ accountId: string }>>`
      select account_id as "accountId" from storefronts where id = ${storefrontId}`;
    if (!row) throw new Error("bench storefront not found");
    await sql`update accounts set status = 'verified', verified_at = now(),
      tos_accepted_version = ${process.env.TOS_VERSION ?? "2026-05-12"} where id = ${row.accountId}`;
    const now = new Date();
    await sql`insert into sessions (id, account_id, created_at, expires_at, extended_at)
      values (${createHash("sha256").update(token).digest("hex")}, ${row.accountId}, ${now},
        ${new Date(now.getTime() + 30 * 86_400_000)}, ${now})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
  const url = `${env.baseUrl}/dashboard/storefronts/${storefrontId}`;
  const headers = { cookie: `marea_session=${token}`, "accept-language": "es" };
  const first = await fetch(url, { headers, redirect: "manual" });
  const html = await first.text();
  if (first.status !== 200 || !html.includes("Fonda Bench")) {
    throw new Error(
      `GET /dashboard/storefronts/{id}: ${first.status} ${first.headers.get("location") ?? ""}`,
    );
  }
  process.stdout.write(`(ed) editor page: ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB\n`);

  await load("warm-up", { url, headers, warmupSec: 0, durationSec: 3 });
  const floor = await load("(b-ed) the floor again, next to (ed)", { url: `${env.baseUrl}/bench/floor` });
  const page = await load("(ed) GET /dashboard/storefronts/{id}, signed in, server-rendered", {
    url,
    headers,
  });
  if (page.non2xx > 0 || page.errors > 0) {
    process.stdout.write(`(ed): ${page.non2xx} non-2xx, ${page.errors} errors\n`);
  }
  // For information: two other dashboard pages with the same session and frame (layout gate, shell, catalogue):
  // what any signed-in page costs, against which the editor's own share shows.
  const overviewUrl = `${env.baseUrl}/dashboard`;
  const overviewHtml = await (await fetch(overviewUrl, { headers })).text();
  process.stdout.write(`(ed-o) overview page: ${(Buffer.byteLength(overviewHtml) / 1024).toFixed(0)} KiB\n`);
  const overview = await load("(ed-o) GET /dashboard, same session", { url: overviewUrl, headers });
  const listUrl = `${env.baseUrl}/dashboard/storefronts`;
  const listHtml = await (await fetch(listUrl, { headers })).text();
  process.stdout.write(
    `(ed-l) storefront list page: ${(Buffer.byteLength(listHtml) / 1024).toFixed(0)} KiB\n`,
  );
  const list = await load("(ed-l) GET /dashboard/storefronts, same session", { url: listUrl, headers });
  const pageFloor = await loadPageFloor(env.baseUrl, "(ed-f)", [["(ed)", page]]);
  // For information: the dashboard's frame (the Shell) with nothing in it and no session read.
  const frame = await load("(ed-s) GET /bench/shell, the dashboard frame alone", {
    url: `${env.baseUrl}/bench/shell`,
  });
  return [
    floor,
    { ...page, ratio: { to: "(b-ed)", value: page.reqPerSec / floor.reqPerSec, target: 0.3 } },
    { ...pageFloor, ratio: { to: "(b-ed)", value: pageFloor.reqPerSec / floor.reqPerSec } },
    { ...frame, ratio: { to: "(b-ed)", value: frame.reqPerSec / floor.reqPerSec } },
    { ...overview, ratio: { to: "(b-ed)", value: overview.reqPerSec / floor.reqPerSec } },
    { ...list, ratio: { to: "(b-ed)", value: list.reqPerSec / floor.reqPerSec } },
  ];
}
