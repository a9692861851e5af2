import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/server/env";
import { AppError, errorBody } from "@/server/errors";
import { docsHref } from "./links";

// DOCS_URL keeps working for operators who host the docs elsewhere (README, "Configuration"): error `doc` links and
// the app's links into the docs go there; by default they stay on this server's /docs.

const saved = { APP_URL: process.env.APP_URL, DOCS_URL: process.env.DOCS_URL };

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnvForTests();
}

afterEach(() => setEnv(saved));

describe("links into the documentation", () => {
  it("default DOCS_URL ({APP_URL}/docs): relative /docs links, error docs at {APP_URL}/docs/errors#code", () => {
    setEnv({ APP_URL: "https://marea.example.com", DOCS_URL: undefined });
    expect(docsHref()).toBe("/docs");
    expect(docsHref("/events")).toBe("/docs/events");
    expect(errorBody(new AppError("slug_taken"), "req_1", "en").error.doc).toBe(
      "https://marea.example.com/docs/errors#slug_taken",
    );
  });

  it("DOCS_URL elsewhere: error docs and the app's links point there", () => {
    setEnv({ APP_URL: "https://marea.example.com", DOCS_URL: "https://developers.example.org/marea/" });
    expect(docsHref()).toBe("https://developers.example.org/marea");
    expect(docsHref("/events")).toBe("https://developers.example.org/marea/events");
    expect(errorBody(new AppError("slug_taken"), "req_1", "en").error.doc).toBe(
      "https://developers.example.org/marea/errors#slug_taken",
    );
  });
});
