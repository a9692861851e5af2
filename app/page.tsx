import { headers } from "next/headers";
import { canReadDevMail } from "@/server/mail/dev-mail";

// The development mail link depends on who asks (docs/security.md, "/dev/mail").
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const showsDevMail = canReadDevMail(await headers());
  return (
    <main className="mx-auto max-w-3xl space-y-3 px-4 py-8 [&_ul]:list-disc [&_ul]:pl-6">
      <h1 className="text-2xl font-semibold">Marea</h1>
      <p>Storefront catalog and webhook service.</p>
      <ul>
        <li>
          <a href="/v1/openapi.json">API description (OpenAPI 3.1)</a>
        </li>
        <li>
          <a href="/healthz">Health</a>
        </li>
        {showsDevMail ? (
          <li>
            <a href="/dev/mail">Development mail outbox</a>
          </li>
        ) : null}
        <li>
          <a href="/signin">Sign in</a>
        </li>
      </ul>
    </main>
  );
}
