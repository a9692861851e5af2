import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./server/wiring/tables.ts",
  out: "./drizzle",
});
