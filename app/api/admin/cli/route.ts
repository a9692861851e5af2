import { runAdminCommand } from "@/server/cli/admin-endpoint";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  return runAdminCommand(request);
}
