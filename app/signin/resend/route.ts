import { handleResend } from "@/server/sessions/forms";

export const dynamic = "force-dynamic";
export const POST = handleResend;
