import { describe, expect, it } from "vitest";
import { roundLikeNumeric } from "./decimal";

describe("roundLikeNumeric (what numeric(p, 4) stores)", () => {
  it("rounds the decimal form half away from zero, as PostgreSQL does", () => {
    // 1.00005 is 1.0000499999… in binary; PostgreSQL gets the text "1.00005" and rounds it up.
    expect(roundLikeNumeric(1.00005, 4)).toBe(1.0001);
    expect(roundLikeNumeric(18.12345, 4)).toBe(18.1235);
    expect(roundLikeNumeric(18.12344, 4)).toBe(18.1234);
    expect(roundLikeNumeric(0.99995, 4)).toBe(1);
    expect(roundLikeNumeric(9.99999, 4)).toBe(10);
    expect(roundLikeNumeric(-2.00005, 4)).toBe(-2.0001);
    expect(roundLikeNumeric(0.1 + 0.2, 4)).toBe(0.3);
    expect(roundLikeNumeric(2.5, 0)).toBe(3);
  });

  it("leaves values that fit alone, and rounds tiny exponent forms to zero", () => {
    expect(roundLikeNumeric(18.5, 4)).toBe(18.5);
    expect(roundLikeNumeric(9_999_999_999.9999, 4)).toBe(9_999_999_999.9999);
    expect(roundLikeNumeric(0, 4)).toBe(0);
    expect(roundLikeNumeric(1e-7, 4)).toBe(0);
    expect(roundLikeNumeric(0.00005, 4)).toBe(0.0001);
  });
});
