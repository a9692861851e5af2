import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One mail as the sink received it over SMTP, decoded enough to read codes from. */
export type SinkMail = { to: string[]; from: string; subject: string; text: string; receivedAt: number };

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(
      /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
      (_whole, _charset: string, encoding: string, text: string) => {
        if (encoding.toUpperCase() === "B") return Buffer.from(text, "base64").toString("utf8");
        const bytes = text
          .replace(/_/g, " ")
          .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
        return Buffer.from(bytes, "latin1").toString("utf8");
      },
    );
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** Headers and text of a single-part mail (what nodemailer sends for `text` only). */
export function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const header = (name: string) =>
    head
      .split(/\r?\n/)
      .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
      ?.slice(name.length + 1)
      .trim() ?? "";
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
        : body;
  return { subject: decodeHeader(header("Subject")), text: text.trimEnd() };
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that keeps every mail in memory, and a tiny loopback HTTP
 * endpoint that lists them as JSON (`GET /mails?to=<address>`), so test workers can read what the app sent.
 */
export async function startMailSink(): Promise<{
  smtpUrl: string;
  httpUrl: string;
  mails: SinkMail[];
  close: () => Promise<void>;
}> {
  const mails: SinkMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const { subject, text } = parseMail(Buffer.concat(chunks).toString("utf8"));
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          subject,
          text,
          receivedAt: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://sink");
    if (url.pathname !== "/mails") return res.writeHead(404).end();
    const to = url.searchParams.get("to")?.toLowerCase();
    const list = to ? mails.filter((m) => m.to.includes(to)) : mails;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const httpPort = (http.address() as AddressInfo).port;

  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    mails,
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
