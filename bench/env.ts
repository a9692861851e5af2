import type { Figures } from "./lib";

/** What bench/run.ts hands every scenario: one `next start` on a fresh PostgreSQL database. */
export type BenchEnv = {
  /** e.g. http://127.0.0.1:3210 */
  baseUrl: string;
  /** The fresh PostgreSQL database the server uses. */
  databaseUrl: string;
  /** A developer key with raised rpm and daily budget. */
  developerKey: string;
  /** The framework floor measured in this same run: a Next route handler returning a constant. */
  floor: Figures;
};

export type BenchRow = Figures & { ratio?: { to: string; value: number; target?: number } };
