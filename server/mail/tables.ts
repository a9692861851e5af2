import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Every mail is written here in the transaction that causes it (so none is lost), then sent by
 * nodemailer when SMTP_URL is set; without SMTP it stays here, shown at /dev/mail.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    /**
     * Set for a mail that carries a code (sign-in, verification): the subject it keeps once delivered, when its
     * text is cleared, so no code stays readable in the outbox (docs/operations.md, "Mail").
     */
    redactedSubject: text("redacted_subject"),
    /** What the mail is about, for tests and the dev outbox (`verification_code`, `delivery_failure`...). */
    kind: text("kind").notNull(),
    status: text("status", { enum: ["pending", "sent", "kept", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("mail_outbox_status_idx").on(t.status, t.createdAt)],
);
