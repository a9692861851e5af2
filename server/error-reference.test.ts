import { describe, expect, it } from "vitest";
import { ERROR_REFERENCE } from "./error-reference";
import { ERROR_CATALOGUE } from "./errors";

// The error reference (/docs/errors) explains every catalogue code in es, en and pt (docs/api.md, "Errors").
describe("the error reference", () => {
  it("covers exactly the catalogue's codes, each with when and what to do in the three languages", () => {
    expect(Object.keys(ERROR_REFERENCE).sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    for (const [code, entry] of Object.entries(ERROR_REFERENCE)) {
      for (const part of [entry.when, entry.fix]) {
        for (const language of ["es", "en", "pt"] as const) {
          expect(part[language].trim().length, `${code} ${language}`).toBeGreaterThan(10);
          // Inline code is written `like this`: an odd number of backticks would swallow the rest of the text.
          expect(part[language].split("`").length % 2, `${code} ${language} backticks`).toBe(1);
        }
        expect(part.es, `${code}: es is a translation`).not.toBe(part.en);
        expect(part.pt, `${code}: pt is a translation`).not.toBe(part.en);
      }
    }
  });
});
