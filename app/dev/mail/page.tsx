import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { dbReady } from "@/server/db/client";
import { canReadDevMail } from "@/server/mail/dev-mail";
import { listOutbox } from "@/server/mail/service";

export const dynamic = "force-dynamic";

/**
 * The database mail outbox while SMTP_URL is unset, to a browser on this machine only (docs/security.md,
 * "/dev/mail"); anyone else gets 404, as if there were no such page.
 */
export default async function DevMailPage() {
  if (!canReadDevMail(await headers())) notFound();
  const mails = await listOutbox(await dbReady(), { limit: 100 });
  return (
    <main className="mx-auto max-w-3xl space-y-3 px-4 py-8 [&_h1]:text-2xl [&_h1]:font-semibold">
      <h1>Development mail outbox</h1>
      <p>
        SMTP_URL is not set, so mail is kept in the database instead of being sent. Only this machine sees it.
      </p>
      {mails.length === 0 ? <p data-testid="mail-empty">No mail yet.</p> : null}
      <ul data-testid="mail-list">
        {mails.map((mail) => (
          <li key={mail.id} data-testid="mail-item" style={{ marginBottom: "1rem" }}>
            <div>
              <strong data-testid="mail-subject">{mail.subject}</strong>
            </div>
            <div data-testid="mail-to">To: {mail.to}</div>
            <div>{mail.createdAt.toISOString()}</div>
            <pre data-testid="mail-text" style={{ whiteSpace: "pre-wrap" }}>
              {mail.text}
            </pre>
          </li>
        ))}
      </ul>
    </main>
  );
}
