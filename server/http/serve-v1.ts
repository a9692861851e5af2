import { dbReady } from "@/server/db/client";
import { createV1Server } from "./node-server";

// `tsx server/http/serve-v1.ts <port>`: the /v1 API on node:http, on DATABASE_URL. Prints "ready <port>".
const port = Number(process.argv[2] ?? 0);
await dbReady();
const server = createV1Server();
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`ready ${typeof address === "object" && address ? address.port : port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
