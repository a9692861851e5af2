import { handlePreflight, handleRegister } from "@/server/oauth/http";

export const dynamic = "force-dynamic";
export const POST = handleRegister;
export const OPTIONS = handlePreflight;
