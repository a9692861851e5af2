import { serve } from "inngest/next";
import type { NextRequest } from "next/server";
import { isInngestConfigured } from "@/server/env";
import { inngest } from "@/server/webhooks/functions";
import { inngestFunctions } from "@/server/wiring/inngest";

// Inngest calls this route to run the webhook delivery and scheduled-job functions. It exists only when Inngest is
// configured (INNGEST_*): otherwise the in-process worker does that work and nothing may call the functions from
// outside (docs/security.md, "Background work"). INNGEST_DEV, which accepts unsigned calls, is refused at start-up
// under NODE_ENV=production (server/env.ts). Wrapped rather than re-exported: Next type-checks route exports.
export const dynamic = "force-dynamic";

const handler = serve({ client: inngest, functions: inngestFunctions });

function notMounted(): Response {
  return new Response("Not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

export async function GET(request: NextRequest, context: unknown): Promise<Response> {
  if (!isInngestConfigured()) return notMounted();
  return handler.GET(request, context);
}

export async function POST(request: NextRequest, context: unknown): Promise<Response> {
  if (!isInngestConfigured()) return notMounted();
  return handler.POST(request, context);
}

export async function PUT(request: NextRequest, context: unknown): Promise<Response> {
  if (!isInngestConfigured()) return notMounted();
  return handler.PUT(request, context);
}
