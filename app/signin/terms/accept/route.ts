import { handleTermsStep } from "@/server/sessions/forms";

export const dynamic = "force-dynamic";
export const POST = handleTermsStep;
