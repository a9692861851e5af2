import { describe, expect, it } from "vitest";
import type { StorefrontEditorDto } from "@/server/storefronts/dto";
import type { StorefrontDto } from "@/server/storefronts/schema";
import { formFromEditor, patchOf } from "./form";

// The editor's PATCH (docs/ui.md, "Storefronts"): only what changed, by /v1's PATCH rules (deep merge, arrays
// replace).

const storefront: StorefrontDto = {
  id: "stf_1",
  name: "Panadería",
  language: "es",
  currency: "MXN",
  businessType: null,
  branding: { logoUrl: "https://cdn.example.com/logo.png", backgroundUrl: null, theme: null, font: "Inter" },
  schedule: {
    monday: { open: "09:00", close: "18:00", closed: false },
    tuesday: null,
    wednesday: null,
    thursday: null,
    friday: null,
    saturday: null,
    sunday: null,
  },
  delivery: { enabled: true, type: "fixed", fixedPrice: 20, ranges: null },
  pickup: true,
  dineIn: null,
  whatsapp: null,
  biography: null,
  categories: [
    { name: "Pan", position: 1 },
    { name: "Café", position: 0 },
  ],
  slug: null,
  hidden: false,
  published: false,
  _links: { editUrl: null, publicUrl: null },
  createdAt: null,
  updatedAt: null,
};

const editor = {
  storefront,
  settings: { timeZone: "America/Mexico_City" },
  stored: { isBiographyAuto: false, isBackgroundAuto: false, blocks: null },
  categoryUsage: [],
} as unknown as StorefrontEditorDto;

describe("the editor's PATCH", () => {
  it("an untouched form sends nothing, even where the stored value is only equivalent (null dineIn, unset positions)", () => {
    const loaded = formFromEditor(editor);
    expect(patchOf(loaded, { ...loaded })).toEqual({});
    expect(loaded.categories.map((c) => c.name)).toEqual(["Café", "Pan"]);
  });

  it("deep-merged objects carry only their changed keys (delivery.enabled always); arrays go whole (rules 1-2)", () => {
    const loaded = formFromEditor(editor);
    const patch = patchOf(loaded, {
      ...loaded,
      font: "Lora",
      fixedPrice: "25",
      schedule: { ...loaded.schedule, tuesday: { open: "10:00", close: "14:00", closed: false } },
      categories: [...loaded.categories].reverse(),
    });
    expect(patch).toEqual({
      branding: { font: "Lora" },
      delivery: { fixedPrice: 25, enabled: true },
      schedule: { tuesday: { open: "10:00", close: "14:00", closed: false } },
      categories: [
        { name: "Pan", position: 0 },
        { name: "Café", position: 1 },
      ],
    });
  });

  it("a number that is not one is sent as typed, so /v1's schema refuses it on its own field", () => {
    const loaded = formFromEditor(editor);
    expect(patchOf(loaded, { ...loaded, fixedPrice: "veinte" })).toEqual({
      delivery: { fixedPrice: "veinte", enabled: true },
    });
  });

  it('an uploaded logo and background are sent as {fileId} (docs/ui.md, "Photos"); a typed URL replaces the upload', () => {
    const loaded = formFromEditor(editor);
    const uploaded = {
      ...loaded,
      logoUrl: "http://127.0.0.1/files/fil_logo",
      logoFileId: "fil_logo",
      backgroundMode: "url" as const,
      backgroundUrl: "http://127.0.0.1/files/fil_bg",
      backgroundFileId: "fil_bg",
    };
    expect(patchOf(loaded, uploaded)).toEqual({
      branding: { logoUrl: { fileId: "fil_logo" }, backgroundUrl: { fileId: "fil_bg" } },
    });
    expect(
      patchOf(loaded, { ...uploaded, logoUrl: "https://cdn.example.com/new-logo.png", logoFileId: "" })
        .branding,
    ).toMatchObject({ logoUrl: "https://cdn.example.com/new-logo.png" });
  });
});
