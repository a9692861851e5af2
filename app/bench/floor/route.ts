// The framework's own floor for the benchmark: a route handler that returns a constant.
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return Response.json({ ok: true });
}
