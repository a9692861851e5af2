import { clsx } from "clsx";
import { cookies } from "next/headers";
import { LANGUAGES, type Language } from "@/app/_i18n/catalogue";
import { getLanguage, getT } from "@/app/_i18n/server";
import { THEME_COOKIE } from "@/server/kit/cookies";
import { DisclosureMenu } from "./disclosure-menu";
import { CheckIcon, MonitorIcon, MoonIcon, SunIcon } from "./ui/icons";

export type Theme = "light" | "dark" | "system";
const THEMES: Theme[] = ["light", "dark", "system"];

/** The theme the `marea_theme` cookie chose (default: follow the system). */
export async function getTheme(): Promise<Theme> {
  const value = (await cookies()).get(THEME_COOKIE)?.value;
  return value === "light" || value === "dark" ? value : "system";
}

/** Each language is named in itself, whatever the interface language. */
const LANGUAGE_NAMES: Record<Language, string> = { es: "Español", en: "English", pt: "Português" };

const OPTION =
  "flex w-full items-center justify-between gap-3 rounded-sm px-2.5 py-2 text-left text-sm text-fg hover:bg-surface-muted aria-[current=true]:font-semibold";

const CHIP =
  "inline-flex items-center gap-1.5 rounded-md border border-border-strong px-3 py-1.5 text-sm text-fg hover:bg-surface-muted aria-[current=true]:border-primary aria-[current=true]:bg-primary-soft aria-[current=true]:font-semibold";

/**
 * Language switcher: a plain form POST to /preferences (sets `marea_lang`), so it works without JavaScript.
 * `menu`: a small disclosure for headers; `inline`: the three choices side by side (the mobile menu).
 */
export async function LanguageSwitcher({ layout = "menu" }: { layout?: "menu" | "inline" }) {
  const [t, current] = await Promise.all([getT(), getLanguage()]);
  const options = LANGUAGES.map((language) => (
    <button
      key={language}
      type="submit"
      name="lang"
      value={language}
      lang={language}
      aria-current={language === current ? "true" : undefined}
      className={layout === "menu" ? OPTION : CHIP}
    >
      {LANGUAGE_NAMES[language]}
      {layout === "menu" && language === current ? <CheckIcon className="text-primary" /> : null}
    </button>
  ));
  if (layout === "inline") {
    return (
      <form method="post" action="/preferences">
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-muted">{t("language.label")}</legend>
          <div className="flex flex-wrap gap-2">{options}</div>
        </fieldset>
      </form>
    );
  }
  return (
    <DisclosureMenu
      testId="language-switcher"
      summary={
        <>
          <span className="sr-only">{t("language.label")}: </span>
          <span lang={current}>{LANGUAGE_NAMES[current]}</span>
        </>
      }
    >
      <form method="post" action="/preferences" aria-label={t("language.label")}>
        {options}
      </form>
    </DisclosureMenu>
  );
}

function ThemeIcon({ theme, className }: { theme: Theme; className?: string }) {
  if (theme === "light") return <SunIcon className={className} />;
  if (theme === "dark") return <MoonIcon className={className} />;
  return <MonitorIcon className={className} />;
}

/** Theme toggle: light, dark or follow the system; a plain form POST to /preferences (sets `marea_theme`). */
export async function ThemeToggle({ layout = "menu" }: { layout?: "menu" | "inline" }) {
  const [t, current] = await Promise.all([getT(), getTheme()]);
  const names: Record<Theme, string> = {
    light: t("theme.light"),
    dark: t("theme.dark"),
    system: t("theme.system"),
  };
  const options = THEMES.map((theme) => (
    <button
      key={theme}
      type="submit"
      name="theme"
      value={theme}
      aria-current={theme === current ? "true" : undefined}
      className={clsx(layout === "menu" ? OPTION : CHIP, "justify-start")}
    >
      <ThemeIcon theme={theme} className="shrink-0 text-muted" />
      <span className="flex-1">{names[theme]}</span>
      {layout === "menu" && theme === current ? <CheckIcon className="text-primary" /> : null}
    </button>
  ));
  if (layout === "inline") {
    return (
      <form method="post" action="/preferences">
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-muted">{t("theme.label")}</legend>
          <div className="flex flex-wrap gap-2">{options}</div>
        </fieldset>
      </form>
    );
  }
  return (
    <DisclosureMenu
      testId="theme-toggle"
      summary={
        <>
          <ThemeIcon theme={current} />
          <span className="sr-only sm:not-sr-only">
            <span className="sr-only">{t("theme.label")}: </span>
            {names[current]}
          </span>
        </>
      }
    >
      <form method="post" action="/preferences" aria-label={t("theme.label")}>
        {options}
      </form>
    </DisclosureMenu>
  );
}
