import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "@/server/lib/pagination";
import { slugify } from "@/server/storefronts/publish";
import { isSafeText } from "./fields";

describe('text fields refuse HTML tags and inline handlers (docs/api.md, "Storefronts")', () => {
  it.each([
    "<b>bold</b>",
    "</p>",
    "<img src=x onerror=alert(1)>",
    "<img src=x onerror=alert(1)",
    "<svg/onload=alert(1)>",
    "<script>alert(1)</script>",
    "<!-- comment -->",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "click onclick=steal()",
    "x onmouseover = y",
    "data:text/html,<b>",
    "nul\u0000byte",
  ])("refuses %j", (value) => {
    expect(isSafeText(value)).toBe(false);
  });

  it.each([
    "2 < 3",
    "a=b",
    "a<b",
    "x => y",
    "5 > 4 and 3 < 4",
    "only=5",
    "ongoing = true",
    "Pan dulce & café",
    "Precio: $10 <= $20",
    "Panadería Doña Ana",
  ])("accepts ordinary text %j", (value) => {
    expect(isSafeText(value)).toBe(true);
  });
});

describe('cursors are opaque and an unreadable one restarts at page one (docs/api.md, "Lists")', () => {
  it("round-trips an id", () => {
    const id = "stf_01m80k2dmh0ffv708e7ks1hda4";
    expect(decodeCursor(encodeCursor(id), "stf")).toBe(id);
  });

  it.each([
    "garbage",
    "",
    "!!!",
    encodeCursor("prd_01m80k2dmh0ffv708e7ks1hda4"),
    "eyJ2IjoyLCJhZnRlciI6InN0Zl8xIn0",
  ])("decodes %j to page one", (cursor) => {
    expect(decodeCursor(cursor, "stf")).toBeNull();
  });
});

describe('publish assigns a slug from the name (docs/api.md, "Delete, publish, unpublish")', () => {
  it("strips accents and punctuation", () => {
    expect(slugify("Panadería Doña Ana!")).toBe("panaderia-dona-ana");
  });
  it("is never empty", () => {
    expect(slugify("¡¿!?")).toBe("store");
  });
});
