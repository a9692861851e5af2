import { handleDisconnect } from "@/server/oauth/forms";

export const dynamic = "force-dynamic";
export const POST = handleDisconnect;
