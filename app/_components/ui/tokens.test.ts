import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * WCAG AA for the design tokens of app/globals.css, in both themes: every text/background pair the components
 * use is >= 4.5:1; control borders and the focus ring >= 3:1 against the surfaces they sit on.
 */
const css = readFileSync(path.resolve("app/globals.css"), "utf8");

function block(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no ${selector} block in globals.css`);
  const body = css.slice(start + selector.length + 2, css.indexOf("}", start));
  return Object.fromEntries(
    [...body.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1], m[2]]),
  );
}

function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

const TEXT_PAIRS: [string, string][] = [
  ["text", "bg"],
  ["text", "surface"],
  ["text", "surface-muted"],
  ["text", "primary-soft"],
  ["text-muted", "bg"],
  ["text-muted", "surface"],
  ["text-muted", "surface-muted"],
  ["on-primary", "primary"],
  ["on-primary", "primary-hover"],
  ["on-danger", "danger"],
  ["on-danger", "danger-hover"],
  ["primary", "bg"],
  ["primary", "surface"],
  ["primary", "primary-soft"],
  ["primary-hover", "surface"],
  ["danger", "surface"],
  ["danger", "bg"],
  ["danger", "danger-soft"],
  ["success", "surface"],
  ["success", "success-soft"],
  ["warning", "surface"],
  ["warning", "warning-soft"],
];

const NON_TEXT_PAIRS: [string, string][] = [
  ["border-strong", "surface"],
  ["border-strong", "bg"],
  ["focus", "surface"],
  ["focus", "bg"],
  ["primary", "surface"],
];

const themes = {
  light: block(":root"),
  dark: block(":root.dark"),
};

describe("design tokens", () => {
  for (const [name, tokens] of Object.entries(themes)) {
    it(`${name}: text pairs >= 4.5:1, control borders and focus ring >= 3:1`, () => {
      for (const [fg, bg] of TEXT_PAIRS) {
        expect(tokens[fg], `--${fg}`).toBeDefined();
        expect(
          contrast(tokens[fg] ?? "", tokens[bg] ?? ""),
          `${name} --${fg} on --${bg}`,
        ).toBeGreaterThanOrEqual(4.5);
      }
      for (const [fg, bg] of NON_TEXT_PAIRS)
        expect(
          contrast(tokens[fg] ?? "", tokens[bg] ?? ""),
          `${name} --${fg} on --${bg}`,
        ).toBeGreaterThanOrEqual(3);
    });
  }

  it("the dark values for the system preference and for the explicit class are the same", () => {
    const media = css.slice(css.indexOf("@media (prefers-color-scheme: dark)"));
    const system = block(":root:not(.light)");
    expect(media.length).toBeGreaterThan(0);
    expect(system).toEqual(themes.dark);
    expect(Object.keys(themes.light).sort()).toEqual(Object.keys(themes.dark).sort());
  });
});
