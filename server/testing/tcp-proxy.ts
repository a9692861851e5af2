import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/**
 * A TCP proxy between the service and PostgreSQL, for the outage tests (docs/operations.md, "Database
 * outages"). It forwards bytes both ways until told to cut:
 *
 * - `reset`: every open connection is destroyed, and new ones are accepted and destroyed at once (a failover or a
 *   restart: the client sees its sockets close, and reconnects fail);
 * - `refuse`: every open connection is destroyed and the port stops listening (connect: ECONNREFUSED);
 * - `blackhole`: connections stay open but nothing is forwarded either way, and new ones are accepted and held
 *   silent (a network partition: no error ever reaches the client, only silence).
 *
 * `restore()` forwards again (on the same port). A connection opened during a blackhole is then connected to the
 * database with what its client sent meanwhile (a partition that heals before the connection gave up); one that
 * was open before it lost bytes for good and is closed.
 */
export type CutMode = "reset" | "refuse" | "blackhole";

export type TcpProxy = {
  port: number;
  /** postgres://… URL of `databaseUrl` with its host and port replaced by the proxy's. */
  url: (databaseUrl: string) => string;
  cut: (mode: CutMode) => Promise<void>;
  restore: () => Promise<void>;
  /** Connections currently open through the proxy. */
  connections: () => number;
  close: () => Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: CutMode | null = null;
  let server: Server = createServer(onConnection);
  let port = 0;

  type Pair = { client: Socket; upstream: Socket | null; held: Buffer[] | null };
  const pairs = new Set<Pair>();

  function onConnection(client: Socket): void {
    client.on("error", () => {});
    if (mode === "reset" || mode === "refuse") {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: null, held: null };
    pairs.add(pair);
    client.on("close", () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    client.on("data", (chunk: Buffer) => {
      if (pair.held) pair.held.push(chunk);
      else if (mode === null) pair.upstream?.write(chunk);
    });
    // Held silent until the proxy is restored (then connected with what was sent) or closed.
    if (mode === "blackhole") pair.held = [];
    else connectUpstream(pair);
  }

  function connectUpstream(pair: Pair): void {
    const upstream = tcpConnect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on("error", () => pair.client.destroy());
    upstream.on("close", () => pair.client.destroy());
    upstream.on("data", (chunk) => {
      if (mode === null) pair.client.write(chunk);
    });
    for (const chunk of pair.held ?? []) upstream.write(chunk);
    pair.held = null;
  }

  async function listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        const address = server.address();
        port = typeof address === "object" && address ? address.port : port;
        resolve();
      });
    });
  }

  function destroyAll(): void {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  }

  async function stopListening(): Promise<void> {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  await listen();

  return {
    get port() {
      return port;
    },
    url(databaseUrl) {
      const parsed = new URL(databaseUrl);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    async cut(next) {
      mode = next;
      if (next === "blackhole") return;
      destroyAll();
      if (next === "refuse") await stopListening();
    },
    async restore() {
      const wasRefusing = mode === "refuse";
      if (mode === "blackhole") {
        mode = null;
        for (const pair of pairs) {
          // Opened during the blackhole: connected now, with what its client sent meanwhile.
          if (pair.held) connectUpstream(pair);
          // Open before it: its bytes were lost on the way, so it can never be whole again.
          else {
            pair.client.destroy();
            pair.upstream?.destroy();
            pairs.delete(pair);
          }
        }
      }
      mode = null;
      if (wasRefusing) {
        server = createServer(onConnection);
        await listen();
      }
    },
    connections: () => pairs.size,
    async close() {
      mode = "reset";
      destroyAll();
      if (server.listening) await stopListening();
    },
  };
}

/**
 * PostgreSQL going away for a service that reaches it twice (docs/operations.md, "Poolers"): one proxy for the
 * pool's `DATABASE_URL` (the pooler, in the PostgreSQL pass) and one for the sessions' `DIRECT_DATABASE_URL`, cut
 * and restored together. `env` holds both URLs through the proxies.
 */
export async function startDatabaseProxy(
  databaseUrl: string,
  directUrl: string | undefined,
): Promise<TcpProxy & { env: { DATABASE_URL: string; DIRECT_DATABASE_URL: string } }> {
  const target = (url: string) => {
    const parsed = new URL(url);
    return { host: parsed.hostname, port: Number(parsed.port || 5432) };
  };
  const pool = await startTcpProxy(target(databaseUrl));
  const direct = directUrl && directUrl !== databaseUrl ? await startTcpProxy(target(directUrl)) : null;
  const all = direct ? [pool, direct] : [pool];
  return {
    get port() {
      return pool.port;
    },
    url: pool.url,
    env: {
      DATABASE_URL: pool.url(databaseUrl),
      DIRECT_DATABASE_URL: direct ? direct.url(directUrl ?? "") : pool.url(databaseUrl),
    },
    cut: async (mode) => {
      await Promise.all(all.map((p) => p.cut(mode)));
    },
    restore: async () => {
      await Promise.all(all.map((p) => p.restore()));
    },
    connections: () => all.reduce((n, p) => n + p.connections(), 0),
    close: async () => {
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
