import { describe, expect, it } from "vitest";
import { redactParams } from "./log";

describe("log redaction", () => {
  it("drops the bound values of a failed query from message and stack, keeping the SQL and the frames", () => {
    const message = 'Failed query: insert into "products" values ($1, $2)\nparams: Concha,secret@example.com';
    expect(redactParams(message)).toBe(
      'Failed query: insert into "products" values ($1, $2)\nparams: [redacted]',
    );
    const stack = `Error: ${message}\n    at queryWithCache (session.js:41:15)\n    at run (service.ts:1:1)`;
    const redacted = redactParams(stack);
    expect(redacted).not.toContain("secret@example.com");
    expect(redacted).toContain("    at queryWithCache (session.js:41:15)\n    at run (service.ts:1:1)");
    expect(redactParams("connect ECONNREFUSED")).toBe("connect ECONNREFUSED");
    expect(redactParams(undefined)).toBeUndefined();
  });
});
