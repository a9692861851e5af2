import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeveloper } from "@/server/accounts/testing";
import { env } from "@/server/env";
import { type ProductionServer, startProductionServer } from "@/server/testing/production-server";
import { testDatabaseKind } from "@/server/testing/setup-db";

const run = promisify(execFile);
const SDK = path.resolve("sdk");

// sdk/README.md: the SDK builds with `npm run build` inside sdk/, and its quickstart example runs against the real
// production start (a real webhook delivered to the example's own receiver and verified with `verifyWebhook`).
describe.skipIf(testDatabaseKind() !== "postgres")(
  "the SDK builds and its example runs against a real server",
  () => {
    let server: ProductionServer;

    beforeAll(async () => {
      server = await startProductionServer({
        DATABASE_URL: env().DATABASE_URL,
        DATA_DIR: env().DATA_DIR,
        UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1",
      });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("npm run build in sdk/ emits dist/ with the client, MareaError and verifyWebhook", async () => {
      await run("npm", ["run", "build"], { cwd: SDK });
      const built = (await import(path.join(SDK, "dist/index.js"))) as Record<string, unknown>;
      expect(typeof built.createMareaClient).toBe("function");
      expect(typeof built.MareaError).toBe("function");
      expect(typeof built.verifyWebhook).toBe("function");
    }, 180_000);

    it("sdk/examples/quickstart.ts runs to the end: a storefront, a typed error, a verified order.created webhook", async () => {
      const developer = await createDeveloper();
      const { stdout } = await run(process.execPath, ["--import", "tsx", "sdk/examples/quickstart.ts"], {
        env: { ...process.env, MAREA_API_KEY: developer.key, MAREA_API_BASE: server.baseUrl },
        timeout: 90_000,
      });
      expect(stdout).toMatch(/^me: developer key key_/m);
      expect(stdout).toMatch(/^storefront stf_/m);
      expect(stdout).toMatch(/^error 404 storefront_not_found \(request req_\w+\)/m);
      const order = /^order (ord_\w+) total/m.exec(stdout)?.[1];
      expect(stdout).toContain(`webhook order.created verified: order ${order}`);
      expect(stdout).toMatch(/^done$/m);
    }, 120_000);
  },
);
