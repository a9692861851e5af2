// Gathers every feature's tables for Drizzle (client typing and drizzle-kit). Tables live in their feature folder.
export * from "@/server/accounts/tables";
export * from "@/server/files/tables";
export * from "@/server/http/tables";
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
