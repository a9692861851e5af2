import path from "node:path";
import {
  benchServerEnv,
  createBenchDatabase,
  createBenchDeveloperKey,
  startServer,
  stopProcess,
  waitForHttp,
} from "./lib";
import { runPhotosBench } from "./photos";

/**
 * The photo scenarios (bench/photos.ts) alone, on the ordinary production build (`.next`, `npx next build`): for a
 * quick figure without the benchmark build. `npx tsx bench/photos-alone.ts`.
 */
const PORT = Number(process.env.BENCH_PORT ?? 3211);

async function main(): Promise<void> {
  const { databaseUrl, drop } = await createBenchDatabase("marea_bench_photos");
  const env = {
    ...benchServerEnv(databaseUrl, path.resolve(".data/bench-photos")),
    MAREA_BENCH_BUILD: "",
    APP_URL: `http://127.0.0.1:${PORT}`,
  };
  const server = startServer({ cwd: process.cwd(), port: PORT, env });
  try {
    const baseUrl = `http://127.0.0.1:${PORT}`;
    await waitForHttp(`${baseUrl}/healthz`);
    const developerKey = await createBenchDeveloperKey(databaseUrl, "bench-photos");
    const floor = { name: "none", reqPerSec: 0, p50: 0, p99: 0, errors: 0, non2xx: 0 };
    await runPhotosBench({ baseUrl, databaseUrl, developerKey, floor });
  } finally {
    stopProcess(server);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await drop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
