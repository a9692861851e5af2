import { createHash } from "node:crypto";
import { createServer } from "node:http";
import postgres from "postgres";

/**
 * Baseline (c): a bare node:http server doing the same work as the pipeline's floor for GET /v1/me — the key
 * lookup by SHA-256 and the atomic counter update — with postgres.js and nothing else.
 * `tsx bench/bare-server.ts <port>` with DATABASE_URL set.
 */
const sql = postgres(process.env.DATABASE_URL ?? "", { max: 10, onnotice: () => {} });
const port = Number(process.argv[2] ?? 0);

const server = createServer((req, res) => {
  void (async () => {
    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!key) {
      res.writeHead(401).end();
      return;
    }
    const hash = createHash("sha256").update(key).digest("hex");
    const [found] =
      await sql`select k.id, k.rpm, a.id as account_id from api_keys k join accounts a on a.id = k.account_id
      where k.hash = ${hash} and k.revoked_at is null`;
    if (!found) {
      res.writeHead(401).end();
      return;
    }
    const now = Date.now();
    const minute = Math.floor(now / 60_000) * 60;
    const day = Math.floor(now / 86_400_000) * 86_400;
    const [counts] = await sql`with m as (
        insert into rate_limit_counters (key_id, bucket, window_start, count) values (${found.id}, 'm', ${minute}, 1)
        on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + 1 returning count
      ), d as (
        insert into rate_limit_counters (key_id, bucket, window_start, count)
        select ${found.id}, 'd', ${day}, 1 from m where m.count <= ${found.rpm}
        on conflict (key_id, bucket, window_start) do update set count = rate_limit_counters.count + 1 returning count
      ) select (select count from m) as minute, (select count from d) as day`;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keyId: found.id, accountId: found.account_id, minute: counts?.minute }));
  })().catch(() => {
    res.writeHead(500).end();
  });
});

server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`ready ${typeof address === "object" && address ? address.port : port}\n`);
});
