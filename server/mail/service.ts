import { and, asc, desc, eq, lt, notInArray } from "drizzle-orm";
import nodemailer, { type Transporter } from "nodemailer";
import type { Db } from "@/server/db/client";
import { env } from "@/server/env";
import { newId } from "@/server/lib/ids";
import { log } from "@/server/lib/log";
import { mailOutbox } from "./tables";

export type MailInput = { to: string; subject: string; text: string; kind: string };
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
          .set({ status: "sent", sentAt: now, attempts: row.attempts + 1 })
          .where(eq(mailOutbox.id, row.id));
        sent++;
      } catch (error) {
        const attempts = row.attempts + 1;
        log("warn", "mail send failed", { mailId: row.id, attempts, error: String(error) });
        await tx
          .update(mailOutbox)
          .set({
            attempts,
            lastError: String(error).slice(0, 500),
            status: attempts >= MAX_SEND_ATTEMPTS ? "failed" : "pending",
          })
          .where(eq(mailOutbox.id, row.id));
      }
      return true;
    });
    if (!handled) break;
  }
  return sent;
}

/** The newest mails in the outbox, for /dev/mail and tests. */
export async function listOutbox(db: Db, options: { to?: string; limit?: number } = {}): Promise<MailRow[]> {
  const query = db.select().from(mailOutbox);
  const filtered = options.to ? query.where(eq(mailOutbox.to, options.to.toLowerCase())) : query;
  return filtered.orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id)).limit(options.limit ?? 50);
}
