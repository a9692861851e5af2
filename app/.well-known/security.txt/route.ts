import { securityTxt } from "@/server/http/security-txt";

// RFC 9116: where to report a vulnerability (docs/security.md, "How to report a vulnerability").
export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return new Response(securityTxt(new Date()), {
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=86400" },
  });
}
