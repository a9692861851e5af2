import { createServer } from "node:http";
import { dbReady } from "@/server/db/client";
import { handleV1Request } from "@/server/wiring/rest";
import { serveFetch } from "./node-server";

// `tsx server/host/serve-v1.ts <port>`: the /v1 API alone on node:http (no Next), on DATABASE_URL. Prints
// "ready <port>". The production start (server/host/main.ts) serves /v1 through the same bridge beside Next.
const port = Number(process.argv[2] ?? 0);
await dbReady();
const server = createServer(serveFetch(handleV1Request));
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`ready ${typeof address === "object" && address ? address.port : port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
