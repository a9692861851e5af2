import { and, asc, desc, eq, isNotNull, lt, ne, notInArray, sql } from "drizzle-orm";
import nodemailer, { type Transporter } from "nodemailer";
import type { Db } from "@/server/db/client";
import { env } from "@/server/env";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { mailOutbox } from "./tables";

/**
 * A mail to queue. `redactedSubject`: the mail carries a secret (a code); once it is delivered (or given up),
 * its text is cleared and its subject becomes this one, which must not hold the secret.
 */
export type MailInput = { to: string; subject: string; text: string; kind: string; redactedSubject?: string };
export type MailRow = typeof mailOutbox.$inferSelect;

const MAX_SEND_ATTEMPTS = 5;

/**
 * Writes a mail into the outbox in the caller's transaction, so it exists exactly when the change that caused
 * it commits. With SMTP_URL it is `pending` until sent; without, it is `kept` and shown at /dev/mail.
 */
export async function queueMail(db: Db, mail: MailInput, now: Date): Promise<string> {
  const id = newId("mail");
  await db.insert(mailOutbox).values({
    id,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    redactedSubject: mail.redactedSubject ?? null,
    kind: mail.kind,
    status: env().SMTP_URL ? "pending" : "kept",
    createdAt: now,
  });
  return id;
}

let transport: Transporter | undefined;
let transportUrl: string | undefined;

function smtpTransport(url: string): Transporter {
  if (!transport || transportUrl !== url) {
    transport = nodemailer.createTransport(url);
    transportUrl = url;
  }
  return transport;
}

/**
 * Sends pending mail through SMTP. Each row is claimed under FOR UPDATE SKIP LOCKED, so several processes can
 * run this at once without sending a mail twice. Failed sends are retried up to 5 times.
 */
export async function deliverPendingMail(db: Db, now: Date = new Date(), batch = 20): Promise<number> {
  const url = env().SMTP_URL;
  if (!url) return 0;
  let sent = 0;
  // Each mail is tried at most once per call: a failing one waits for the next run, not the next loop turn.
  const tried: string[] = [];
  for (let i = 0; i < batch; i++) {
    const handled = await db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(mailOutbox)
        .where(
          and(
            eq(mailOutbox.status, "pending"),
            lt(mailOutbox.attempts, MAX_SEND_ATTEMPTS),
            tried.length > 0 ? notInArray(mailOutbox.id, tried) : undefined,
          ),
        )
        .orderBy(asc(mailOutbox.createdAt))
        .limit(1)
        .for("update", { skipLocked: true });
      if (!row) return false;
      tried.push(row.id);
      try {
        await smtpTransport(url).sendMail({
          from: env().MAIL_FROM,
          to: row.to,
          subject: row.subject,
          text: row.text,
        });
        await tx
          .update(mailOutbox)
          .set({ status: "sent", sentAt: now, attempts: row.attempts + 1, ...redacted(row) })
          .where(eq(mailOutbox.id, row.id));
        sent++;
      } catch (error) {
        const attempts = row.attempts + 1;
        const isGivenUp = attempts >= MAX_SEND_ATTEMPTS;
        log("warn", "mail send failed", { mailId: row.id, attempts, error: String(error) });
        await tx
          .update(mailOutbox)
          .set({
            attempts,
            lastError: String(error).slice(0, 500),
            status: isGivenUp ? "failed" : "pending",
            ...(isGivenUp ? redacted(row) : {}),
          })
          .where(eq(mailOutbox.id, row.id));
      }
      return true;
    });
    if (!handled) break;
  }
  return sent;
}

/** What a mail carrying a code keeps once it left (or was given up): its redacted subject and no text. */
function redacted(row: MailRow): Partial<MailRow> {
  return row.redactedSubject === null ? {} : { subject: row.redactedSubject, text: "" };
}

/** Codes mailed are valid at most 24 hours (verification; sign-in codes 10 minutes): past that, none is kept. */
const CODE_MAIL_KEPT_MS = 24 * 60 * 60 * 1000;
/** The outbox keeps a mail 30 days (enough to answer "did you send it?"), then the row goes. */
const OUTBOX_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Job `purge-mail` (docs/operations.md, "Scheduled jobs"): clears the text and the code-bearing subject of code
 * mails older than 24 hours whatever their state (their codes have expired; without SMTP, /dev/mail shows the
 * codes until then), and deletes every outbox row older than 30 days.
 */
export async function purgeMailOutbox(db: Db, now: Date): Promise<{ redacted: number; deleted: number }> {
  const codesBefore = new Date(now.getTime() - CODE_MAIL_KEPT_MS);
  const cleared = await db
    .update(mailOutbox)
    .set({ subject: sql`${mailOutbox.redactedSubject}`, text: "" })
    .where(
      and(
        isNotNull(mailOutbox.redactedSubject),
        ne(mailOutbox.text, ""),
        lt(mailOutbox.createdAt, codesBefore),
      ),
    )
    .returning({ id: mailOutbox.id });
  const deleted = await db
    .delete(mailOutbox)
    .where(lt(mailOutbox.createdAt, new Date(now.getTime() - OUTBOX_KEPT_MS)))
    .returning({ id: mailOutbox.id });
  return { redacted: cleared.length, deleted: deleted.length };
}

/** The newest mails in the outbox, for /dev/mail and tests. */
export async function listOutbox(db: Db, options: { to?: string; limit?: number } = {}): Promise<MailRow[]> {
  const query = db.select().from(mailOutbox);
  const filtered = options.to ? query.where(eq(mailOutbox.to, options.to.toLowerCase())) : query;
  return filtered.orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id)).limit(options.limit ?? 50);
}
