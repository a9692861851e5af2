import { describe, expect, it } from "vitest";
import {
  CATALOGUES,
  interpolate,
  LANGUAGES,
  languageFromAcceptLanguage,
  plural,
  resolveLanguage,
  translator,
} from "./catalogue";
import { en } from "./messages/en";

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "").sort();
}

describe("the interface catalogue", () => {
  it("es and pt have exactly the English keys, each filled and with the same placeholders", () => {
    const keys = Object.keys(en).sort();
    for (const language of LANGUAGES) {
      const messages = CATALOGUES[language];
      expect(Object.keys(messages).sort(), language).toEqual(keys);
      for (const key of keys) {
        const text = messages[key as keyof typeof en];
        expect(text.trim().length, `${language} ${key}`).toBeGreaterThan(0);
        expect(placeholders(text), `${language} ${key}`).toEqual(placeholders(en[key as keyof typeof en]));
      }
    }
  });

  it("es and pt are translations, not copies of the English", () => {
    for (const language of ["es", "pt"] as const) {
      const same = Object.keys(en).filter((key) => {
        const text = en[key as keyof typeof en];
        // Names and identifiers are the same in every language.
        return text === CATALOGUES[language][key as keyof typeof en] && /[a-z]{4,} [a-z]{3,}/.test(text);
      });
      expect(same, language).toEqual([]);
    }
  });

  it("t() interpolates {name} placeholders, and leaves unknown ones visible", () => {
    expect(translator("es")("signin.code.description", { email: "ana@example.com" })).toBe(
      "Enviamos un código de 6 dígitos a ana@example.com. Caduca en 10 minutos.",
    );
    expect(translator("pt")("signin.retryIn", { minutes: 3 })).toBe("Tente de novo em cerca de 3 min.");
    expect(interpolate("Hello {name} and {other}", { name: "Ana" })).toBe("Hello Ana and {other}");
    expect(interpolate("{a}{a}", { a: 1 })).toBe("11");
  });
});

describe("counted messages (Intl.PluralRules)", () => {
  it("each `.one` form has its `.other`, and the other way round", () => {
    const keys = Object.keys(en);
    for (const key of keys.filter((k) => k.endsWith(".one")))
      expect(keys, key).toContain(`${key.slice(0, -4)}.other`);
    for (const key of keys.filter((k) => k.endsWith(".other")))
      expect(keys, key).toContain(`${key.slice(0, -6)}.one`);
  });

  it("the import page says 1 row and 1 product, 2 rows and 2 products, in en, es and pt", () => {
    const en = translator("en");
    expect(plural(en, "en", "import.send", { count: 1 })).toBe("Import 1 product");
    expect(plural(en, "en", "import.send", { count: 2 })).toBe("Import 2 products");
    expect(plural(en, "en", "import.send", { count: 0 })).toBe("Import 0 products");
    expect(plural(en, "en", "import.rowsRead", { count: 1, file: "a.csv" })).toBe("1 row read from a.csv.");
    expect(plural(en, "en", "import.invalidRows", { count: 1 })).toBe(
      "1 row has mistakes and will not be sent.",
    );
    const es = translator("es");
    expect(plural(es, "es", "import.send", { count: 1 })).toBe("Importar 1 producto");
    expect(plural(es, "es", "import.rowsRead", { count: 3, file: "a.csv" })).toBe(
      "Se leyeron 3 filas de a.csv.",
    );
    expect(plural(es, "es", "import.invalidRows", { count: 1 })).toBe(
      "1 fila tiene errores y no se enviará.",
    );
    // CLDR's `many` (a million) reads as the plural.
    expect(plural(es, "es", "import.send", { count: 1_000_000 })).toBe("Importar 1000000 productos");
    const pt = translator("pt");
    expect(plural(pt, "pt", "import.send", { count: 1 })).toBe("Importar 1 produto");
    expect(plural(pt, "pt", "import.send", { count: 2 })).toBe("Importar 2 produtos");
    expect(plural(pt, "pt", "import.rowsRead", { count: 1, file: "a.csv" })).toBe("1 linha lida de a.csv.");
  });

  it("the dashboard's counts: 1 product, 1 storefront, 1 failure, 1 account in en, es and pt; 2 of each", () => {
    const en = translator("en");
    expect(plural(en, "en", "storefronts.list.productsOf", { count: 1, name: "Tacos" })).toBe(
      "1 product of Tacos",
    );
    expect(plural(en, "en", "storefronts.list.productsOf", { count: 2, name: "Tacos" })).toBe(
      "2 products of Tacos",
    );
    expect(plural(en, "en", "storefronts.list.description", { used: 0, count: 1, plan: "FREE_NEW" })).toBe(
      "0 of 1 storefront on the FREE_NEW plan.",
    );
    expect(plural(en, "en", "storefronts.list.description", { used: 2, count: 10, plan: "PRO" })).toBe(
      "2 of 10 storefronts on the PRO plan.",
    );
    expect(
      plural(en, "en", "storefronts.upgrade.limits", {
        plan: "FREE_NEW",
        count: 1,
        products: "2,000",
        publish: "cannot publish",
      }),
    ).toBe("FREE_NEW: up to 1 storefront and 2,000 products; cannot publish.");
    expect(plural(en, "en", "storefronts.delete.body", { count: 1 })).toContain(
      "its 1 product stops counting against your plan.",
    );
    expect(plural(en, "en", "storefronts.categories.renamed", { count: 1, name: "Tacos" })).toBe(
      "1 product is in “Tacos”: it keeps that name, which becomes an orphan category.",
    );
    expect(plural(en, "en", "keys.revokedCascade", { name: "App", count: 1 })).toBe(
      "Developer key App revoked; 1 unverified account cancelled.",
    );
    expect(plural(en, "en", "keys.revokedCascade", { name: "App", count: 2 })).toBe(
      "Developer key App revoked; 2 unverified accounts cancelled.",
    );
    expect(
      en("keys.revoke.developer", {
        unverified: plural(en, "en", "keys.revoke.unverified", { count: 1 }),
        live: plural(en, "en", "keys.revoke.live", { count: 2 }),
      }),
    ).toBe(
      "This developer key stops at once. 1 unverified account it created will be cancelled (reason key_revoked). Order events of the 2 live accounts it created stop reaching your endpoints. This cannot be undone.",
    );
    expect(plural(en, "en", "overview.deliveries.failures", { count: 1 })).toBe("1 failure in a row");
    expect(plural(en, "en", "webhooks.recover.done", { count: 1 })).toBe("1 delivery queued again.");
    expect(plural(en, "en", "import.problem.tooManyCells", { cells: 2, count: 1 })).toMatch(
      /^2 cells but the header has 1 column \(/,
    );
    const es = translator("es");
    expect(plural(es, "es", "storefronts.list.productsOf", { count: 1, name: "Tacos" })).toBe(
      "1 producto de Tacos",
    );
    expect(plural(es, "es", "keys.revoke.unverified", { count: 1 })).toBe(
      "Se cancelará 1 cuenta sin verificar que creó (motivo key_revoked).",
    );
    expect(plural(es, "es", "keys.revoke.unverified", { count: 3 })).toBe(
      "Se cancelarán 3 cuentas sin verificar que creó (motivo key_revoked).",
    );
    expect(plural(es, "es", "overview.deliveries.failures", { count: 2 })).toBe("2 fallos seguidos");
    expect(plural(es, "es", "webhooks.recover.done", { count: 1 })).toBe(
      "1 entrega puesta en cola de nuevo.",
    );
    const pt = translator("pt");
    expect(plural(pt, "pt", "storefronts.categories.renamed", { count: 1, name: "Tacos" })).toBe(
      "1 produto está em “Tacos”: ele mantém esse nome, que vira uma categoria órfã.",
    );
    expect(plural(pt, "pt", "keys.revokedCascade", { name: "App", count: 2 })).toBe(
      "Chave de desenvolvedor App revogada; 2 contas não verificadas canceladas.",
    );
    expect(plural(pt, "pt", "overview.deliveries.failures", { count: 1 })).toBe("1 falha seguida");
  });
});

describe("the interface language", () => {
  it("Accept-Language: the first of es, en, pt by q-value; none of them: null", () => {
    expect(languageFromAcceptLanguage("pt-BR,pt;q=0.9,en;q=0.8")).toBe("pt");
    expect(languageFromAcceptLanguage("fr-FR,fr;q=0.9,es;q=0.5,en;q=0.4")).toBe("es");
    expect(languageFromAcceptLanguage("en;q=0.2, es;q=0.8")).toBe("es");
    expect(languageFromAcceptLanguage("de, fr")).toBeNull();
    expect(languageFromAcceptLanguage("es;q=0")).toBeNull();
    expect(languageFromAcceptLanguage(null)).toBeNull();
  });

  it("order: cookie, then the account's language, then Accept-Language, then English", () => {
    expect(resolveLanguage({ cookie: "pt", accountLanguage: "es", acceptLanguage: "en" })).toBe("pt");
    expect(resolveLanguage({ cookie: "xx", accountLanguage: "es", acceptLanguage: "en" })).toBe("es");
    expect(resolveLanguage({ accountLanguage: null, acceptLanguage: "pt-PT" })).toBe("pt");
    expect(resolveLanguage({ acceptLanguage: "ja" })).toBe("en");
    expect(resolveLanguage({})).toBe("en");
  });
});
