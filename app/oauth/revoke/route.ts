import { handlePreflight, handleRevoke } from "@/server/oauth/http";

export const dynamic = "force-dynamic";
export const POST = handleRevoke;
export const OPTIONS = handlePreflight;
