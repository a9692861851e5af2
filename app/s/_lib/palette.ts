/**
 * The merchant's colours as our design tokens (docs/ui.md, "Public storefront"): the page wears the storefront's
 * theme (`primary` for actions and links, `secondary` as the page background, `tertiary` for sale prices), but
 * every text/background pair keeps WCAG AA contrast (>= 4.5:1; borders and the focus ring >= 3:1). A colour that
 * would fall short is moved towards the text colour until it passes; a value that is not a hex colour (`#rgb`
 * or `#rrggbb`) is ignored. Pure, so app/s/_lib/palette.test.ts checks it for every preset and random themes.
 */

export type Theme = { primary: string | null; secondary: string | null; tertiary: string | null } | null;

type Rgb = [number, number, number];

const LIGHT_BG = "#f6f7f9";
const DEFAULT_PRIMARY = "#0b5cad";
const DEFAULT_ACCENT = "#b42318";
const DARK_TEXT = "#111827";
const LIGHT_TEXT = "#f3f4f6";

/** The tokens the page overrides, as CSS custom properties (see app/globals.css). */
export type Palette = Record<
  | "--bg"
  | "--surface"
  | "--surface-muted"
  | "--border"
  | "--border-strong"
  | "--text"
  | "--text-muted"
  | "--primary"
  | "--primary-hover"
  | "--on-primary"
  | "--primary-soft"
  | "--danger"
  | "--danger-hover"
  | "--on-danger"
  | "--danger-soft"
  | "--success"
  | "--success-soft"
  | "--warning"
  | "--warning-soft"
  | "--focus"
  | "--accent"
  | "--accent-soft",
  string
> & { "color-scheme": "light" | "dark" };

export function parseHex(value: string | null | undefined): Rgb | null {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value?.trim() ?? "");
  if (!match?.[1]) return null;
  const hex = match[1].length === 3 ? [...match[1]].map((c) => c + c).join("") : match[1];
  const n = Number.parseInt(hex, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b]
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [x, y] = [parseHex(a), parseHex(b)];
  if (!x || !y) return 1;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `a` moved `amount` (0..1) of the way to `b`. */
export function mix(a: string, b: string, amount: number): string {
  const [x, y] = [parseHex(a), parseHex(b)];
  if (!x || !y) return a;
  return toHex([0, 1, 2].map((i) => (x[i] ?? 0) + ((y[i] ?? 0) - (x[i] ?? 0)) * amount) as Rgb);
}

/**
 * `color` moved towards `towards` just enough to reach `ratio` (with a little margin for rounding) against every
 * background `backgroundsOf(candidate)` names (a tint of the colour itself can be one of them).
 */
function ensureContrast(
  color: string,
  backgrounds: string[] | ((candidate: string) => string[]),
  ratio: number,
  towards: string,
): string {
  for (let step = 0; step <= 40; step++) {
    const candidate = mix(color, towards, step / 40);
    const against = typeof backgrounds === "function" ? backgrounds(candidate) : backgrounds;
    if (against.every((other) => contrast(candidate, other) >= ratio + 0.05)) return candidate;
  }
  return towards;
}

/** The palette for a storefront's theme; no theme (or no usable colours) gives our light tokens' look. */
export function storefrontPalette(theme: Theme): Palette {
  const bgRgb = parseHex(theme?.secondary);
  const base = bgRgb ? toHex(bgRgb) : LIGHT_BG;
  // Dark when light text reads better on it than dark text does.
  const isDark = contrast(LIGHT_TEXT, base) > contrast(DARK_TEXT, base);
  const text = isDark ? LIGHT_TEXT : DARK_TEXT;
  // A mid-tone background is lightened (or darkened) until body text reads comfortably (7:1), so the tints
  // below it still leave room for AA.
  const bg = ensureContrast(base, [text], 7, isDark ? "#000000" : "#ffffff");
  const surface = isDark ? mix(bg, "#ffffff", 0.06) : mix(bg, "#ffffff", 0.75);
  const surfaceMuted = mix(bg, text, 0.07);
  const backgrounds = [bg, surface, surfaceMuted];
  const textMuted = ensureContrast(mix(text, bg, 0.4), backgrounds, 4.5, text);
  const brand = parseHex(theme?.primary) ? toHex(parseHex(theme?.primary) as Rgb) : DEFAULT_PRIMARY;
  const primary = ensureContrast(brand, (c) => [bg, surface, mix(surface, c, 0.12)], 4.5, text);
  const onPrimary = contrast("#ffffff", primary) >= contrast("#000000", primary) ? "#ffffff" : "#000000";
  const primaryHover = ensureContrast(mix(primary, text, 0.18), [bg, surface], 4.5, text);
  const primarySoft = mix(surface, primary, 0.12);
  const accentBase = parseHex(theme?.tertiary) ? toHex(parseHex(theme?.tertiary) as Rgb) : DEFAULT_ACCENT;
  const accent = ensureContrast(accentBase, (c) => [bg, surface, mix(surface, c, 0.12)], 4.5, text);
  const accentSoft = mix(surface, accent, 0.12);
  const danger = ensureContrast(
    isDark ? "#ff7b72" : "#b42318",
    (c) => [bg, surface, mix(surface, c, 0.12)],
    4.5,
    text,
  );
  const dangerSoft = mix(surface, danger, 0.12);
  const success = ensureContrast(
    isDark ? "#56d364" : "#05603a",
    (c) => [bg, surface, mix(surface, c, 0.12)],
    4.5,
    text,
  );
  const successSoft = mix(surface, success, 0.12);
  const warning = ensureContrast(
    isDark ? "#e3b341" : "#8a4b00",
    (c) => [bg, surface, mix(surface, c, 0.12)],
    4.5,
    text,
  );
  const warningSoft = mix(surface, warning, 0.12);
  return {
    "color-scheme": isDark ? "dark" : "light",
    "--bg": bg,
    "--surface": surface,
    "--surface-muted": surfaceMuted,
    "--border": mix(bg, text, 0.16),
    "--border-strong": ensureContrast(mix(bg, text, 0.45), [bg, surface], 3, text),
    "--text": text,
    "--text-muted": textMuted,
    "--primary": primary,
    "--primary-hover": primaryHover,
    "--on-primary": onPrimary,
    "--primary-soft": primarySoft,
    "--danger": danger,
    "--danger-hover": danger,
    "--on-danger": contrast("#ffffff", danger) >= contrast("#000000", danger) ? "#ffffff" : "#000000",
    "--danger-soft": dangerSoft,
    "--success": success,
    "--success-soft": successSoft,
    "--warning": warning,
    "--warning-soft": warningSoft,
    "--focus": primary,
    "--accent": accent,
    "--accent-soft": accentSoft,
  };
}

/**
 * The merchant's font first (only letters, digits, spaces and hyphens: it lands in CSS), then our sans stack.
 * No font is downloaded: a font the customer's device has is used, else the stack.
 */
export function fontStack(font: string | null | undefined): string | null {
  const name = font?.trim() ?? "";
  if (!name || !/^[\p{L}\p{N} -]{1,60}$/u.test(name)) return null;
  return `"${name}", var(--font-sans)`;
}
