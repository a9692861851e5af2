import { handleHealthRequest } from "@/server/health/http";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return handleHealthRequest();
}
