import { connect } from "node:net";

/**
 * Sends raw bytes over one connection to 127.0.0.1:`port` and collects everything the server writes until it
 * closes the connection (or `ms` passed, or `until` says what arrived is enough): for tests of what the HTTP layer
 * does with malformed, cut-off or oversized requests, which `fetch` cannot send.
 */
export function rawExchange(
  port: number,
  parts: Array<string | Buffer>,
  ms = 3000,
  until?: (received: string) => boolean,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, ms);
    socket.on("data", (d) => {
      received += d.toString("latin1");
      if (until?.(received)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (received) resolve(received);
      else reject(error);
    });
    for (const part of parts) socket.write(part);
  });
}

/** True once `received` holds a whole HTTP/1.1 answer: its head and its body (by Content-Length, or chunked). */
export function hasWholeAnswer(received: string): boolean {
  const end = received.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = received.slice(0, end);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return received.endsWith("\r\n0\r\n\r\n");
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  return received.length - (end + 4) >= Number(length ?? 0);
}
