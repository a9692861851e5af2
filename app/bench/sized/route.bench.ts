// The framework floor with a body as large as a page (bench/README.md, scenario (s)): a route handler that
// returns a constant HTML body of `?bytes=` bytes, so the cost of the bytes themselves is measured apart from
// the page's own.
export const dynamic = "force-dynamic";

const bodies = new Map<number, string>();

export async function GET(request: Request): Promise<Response> {
  const bytes = Math.min(Number(new URL(request.url).searchParams.get("bytes")) || 0, 2_000_000);
  let body = bodies.get(bytes);
  if (body === undefined) {
    body = "<p>".padEnd(bytes, "x");
    bodies.set(bytes, body);
  }
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
}
