import { handlePreferences } from "@/server/sessions/preferences";

export const dynamic = "force-dynamic";
export const POST = handlePreferences;
