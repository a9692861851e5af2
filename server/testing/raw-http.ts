import { connect } from "node:net";

/**
 * Sends raw bytes over one connection to 127.0.0.1:`port` and collects everything the server writes until it
 * closes the connection (or `ms` passed): for tests of what the HTTP layer does with malformed, cut-off or
 * oversized requests, which `fetch` cannot send.
 */
export function rawExchange(port: number, parts: Array<string | Buffer>, ms = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, ms);
    socket.on("data", (d) => {
      received += d.toString("latin1");
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
