// Every table of the app, gathered from the folders that own them (docs/architecture.md, "Wiring"). drizzle-kit
// reads this file (drizzle.config.ts); adding a feature's tables is one line here.

export * from "@/server/db/tables";
export * from "@/server/files/tables";
export * from "@/server/gate/tables";
export * from "@/server/jobs/tables";
export * from "@/server/limits/tables";
export * from "@/server/listen/tables";
export * from "@/server/mail/tables";
export * from "@/server/oauth/tables";
export * from "@/server/orders/tables";
export * from "@/server/products/tables";
export * from "@/server/sessions/tables";
export * from "@/server/storefronts/tables";
export * from "@/server/webhooks/tables";
