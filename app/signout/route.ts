import { handleSignOut } from "@/server/sessions/forms";

export const dynamic = "force-dynamic";
export const POST = handleSignOut;
