import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import type { AppError } from "@/server/errors";
import { mailOutbox } from "@/server/mail/tables";
import { requestSignInCode, SIGN_IN_LIMITS, verifySignInCode } from "./service";
import { latestSignInCode, signedInSession, uniqueIp } from "./testing";

// Sign-in codes (docs/ui.md, "Sign-in and sessions"; docs/security.md, "Abuse limits and product decisions"): a
// daily ceiling per address beside the hourly windows, and a warning to the address after repeated wrong codes.

const HOUR = 60 * 60_000;

async function code(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "ok",
    (error: AppError) => error.code,
  );
}

async function alertsTo(email: string) {
  const db = await dbReady();
  return db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.to, email), eq(mailOutbox.kind, "sign_in_alert")));
}

describe("L6: sign-in codes have a daily ceiling per address", () => {
  it("L6: 10 code requests a UTC day per address, even spread over hours (then sign_in_rate_limited until midnight)", async () => {
    const db = await dbReady();
    const email = uniqueEmail("daily");
    const start = new Date("2030-06-01T08:00:00Z");
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < SIGN_IN_LIMITS.codeRequestsPerAddress; i++) {
        const at = new Date(start.getTime() + hour * HOUR);
        expect(await code(requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, at))).toBe("ok");
      }
    }
    const third = new Date(start.getTime() + 2 * HOUR);
    const refused = await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, third).then(
      () => null,
      (error: AppError) => error,
    );
    expect(refused?.code).toBe("sign_in_rate_limited");
    expect(refused?.options.retryAfterMs).toBe(14 * HOUR);
    const nextDay = new Date("2030-06-02T00:00:00Z");
    expect(await code(requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, nextDay))).toBe("ok");
  });

  it("L6: 20 code tries a UTC day per address, even spread over hours; a refused try is not looked at", async () => {
    const db = await dbReady();
    const email = uniqueEmail("guessed");
    const start = new Date("2030-06-03T08:00:00Z");
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < SIGN_IN_LIMITS.verifyAttemptsPerAddress; i++) {
        const at = new Date(start.getTime() + hour * HOUR);
        const answer = await code(
          verifySignInCode(db, { email, code: "123456", ip: uniqueIp(), language: "en" }, at),
        );
        expect(answer).toBe("sign_in_code_expired");
      }
    }
    const later = new Date(start.getTime() + 2 * HOUR);
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, later);
    const right = (await latestSignInCode(email)) ?? "";
    expect(
      await code(verifySignInCode(db, { email, code: right, ip: uniqueIp(), language: "en" }, later)),
    ).toBe("sign_in_rate_limited");
  });

  it("L6: at the 10th wrong code of a day the address is mailed a warning, once, in its account's language", async () => {
    const db = await dbReady();
    const email = uniqueEmail("warned");
    // An account in Portuguese; the guesser's interface is English.
    await signedInSession(email, { language: "pt", now: new Date("2030-06-04T07:00:00Z") });
    const start = new Date("2030-06-04T08:00:00Z");
    const guess = async (at: Date) => {
      const right = (await latestSignInCode(email)) ?? "";
      const wrong = right === "000000" ? "111111" : "000000";
      return code(verifySignInCode(db, { email, code: wrong, ip: uniqueIp(), language: "en" }, at));
    };
    for (let round = 0; round < 2; round++) {
      const at = new Date(start.getTime() + round * 2 * 60_000);
      await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, at);
      // The 5th wrong code voids the code (sign_in_code_expired); all five count as wrong.
      for (let i = 0; i < 5; i++)
        expect(await guess(at)).toBe(i < 4 ? "invalid_sign_in_code" : "sign_in_code_expired");
      if (round === 0) expect(await alertsTo(email)).toHaveLength(0);
    }
    const alerts = await alertsTo(email);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.subject).toBe("Tentativas falhas de entrar no Marea com seu e-mail");
    expect(alerts[0]?.text).not.toMatch(/\d{6}/);
    // More wrong codes the same day: no second mail.
    const later = new Date(start.getTime() + HOUR);
    await requestSignInCode(db, { email, ip: uniqueIp(), language: "en" }, later);
    expect(await guess(later)).toBe("invalid_sign_in_code");
    expect(await alertsTo(email)).toHaveLength(1);
  });
});
