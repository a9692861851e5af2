import { serve } from "inngest/next";
import type { NextRequest } from "next/server";
import { inngest, inngestFunctions } from "@/server/webhooks/functions";

// Inngest calls this route to run the webhook delivery and scheduled-job functions (used when INNGEST_* is
// configured). Wrapped rather than re-exported: Next type-checks route exports.
export const dynamic = "force-dynamic";

const handler = serve({ client: inngest, functions: inngestFunctions });

export async function GET(request: NextRequest, context: unknown): Promise<Response> {
  return handler.GET(request, context);
}

export async function POST(request: NextRequest, context: unknown): Promise<Response> {
  return handler.POST(request, context);
}

export async function PUT(request: NextRequest, context: unknown): Promise<Response> {
  return handler.PUT(request, context);
}
