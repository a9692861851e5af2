import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: [
    "./server/accounts/tables.ts",
    "./server/files/tables.ts",
    "./server/http/tables.ts",
    "./server/jobs/tables.ts",
    "./server/limits/tables.ts",
    "./server/listen/tables.ts",
    "./server/mail/tables.ts",
    "./server/oauth/tables.ts",
    "./server/orders/tables.ts",
    "./server/products/tables.ts",
    "./server/sessions/tables.ts",
    "./server/storefronts/tables.ts",
    "./server/webhooks/tables.ts",
  ],
  out: "./drizzle",
});
