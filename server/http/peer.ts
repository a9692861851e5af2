import type { IncomingMessage } from "node:http";

/**
 * The socket's peer, as the production start (server/host/main.ts) passes it to every handler (docs/security.md,
 * "Client addresses"). Fetch-style handlers and Next's pages see only headers, never the socket, so the
 * production start writes the peer into this header on every request, replacing whatever a client sent under
 * that name. It imports nothing of the app: main.ts loads it beside Next without a second copy of the app.
 */
export const PEER_HEADER = "x-marea-peer";

// main.ts and Next's bundle are separate module graphs: the mark lives on globalThis under a registered symbol.
const STAMPED = Symbol.for("marea.peerHeaderStamped");

/**
 * Says that this process's server overwrites PEER_HEADER on every request (the production start does, before
 * it serves). Without it (`next dev`, `next start` alone, tests calling handlers) the header is a client's and
 * is never read.
 */
export function markPeerHeaderStamped(): void {
  (globalThis as { [STAMPED]?: boolean })[STAMPED] = true;
}

export function isPeerHeaderStamped(): boolean {
  return (globalThis as { [STAMPED]?: boolean })[STAMPED] === true;
}

/** Replaces any incoming copy of PEER_HEADER with the socket's remote address (empty when the socket is gone). */
export function stampPeer(req: IncomingMessage): void {
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
}
