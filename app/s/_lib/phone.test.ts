import { describe, expect, it } from "vitest";
import { WhatsappInput } from "@/server/storefronts/schema";
import { defaultRegion, toE164 } from "./phone";

describe("checkout phone", () => {
  it("builds E.164 from the country and the national number", () => {
    expect(toE164("MX", "55 1234 5678")).toBe("+525512345678");
    expect(toE164("AR", "011-4123-4567")).toBe("+541141234567");
    expect(WhatsappInput.safeParse(toE164("MX", "55 1234 5678")).success).toBe(true);
    expect(WhatsappInput.safeParse(toE164("MX", "12ab")).success).toBe(false);
  });

  it("starts on the WhatsApp number's country, else the currency's", () => {
    expect(defaultRegion("+5491123456789", "USD")).toBe("AR");
    expect(defaultRegion("+351912345678", "EUR")).toBe("PT");
    expect(defaultRegion("+18095551234", "DOP")).toBe("DO");
    expect(defaultRegion(null, "BRL")).toBe("BR");
    expect(defaultRegion(null, "JPY")).toBe("MX");
  });
});
