// The framework's own floor for the benchmark: a route handler that returns a constant.
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return Response.json({ ok: true });
}

// The same floor for a request with a JSON body (for information in `npm run bench`): the body is read and
// parsed, nothing else is done.
export async function POST(request: Request): Promise<Response> {
  const body: unknown = JSON.parse(await request.text());
  return Response.json({ ok: body !== undefined });
}
