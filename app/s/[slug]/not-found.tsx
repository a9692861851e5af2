import { translator } from "@/app/_i18n/catalogue";

/**
 * An unknown, unpublished, hidden or deleted storefront (and any missing page under it): 404, in the three
 * languages, since a storefront that cannot be shown cannot say which one is its own.
 */
export default function StorefrontNotFound() {
  return (
    <main className="mx-auto max-w-xl space-y-6 px-4 py-16">
      {(["es", "pt", "en"] as const).map((language, index) => {
        const t = translator(language);
        const Heading = index === 0 ? "h1" : "h2";
        return (
          <div key={language} lang={language} className="space-y-1">
            <Heading className={index === 0 ? "text-2xl font-semibold" : "text-lg font-semibold"}>
              {t("storefront.notFound.title")}
            </Heading>
            <p className="text-muted">{t("storefront.notFound.body")}</p>
          </div>
        );
      })}
    </main>
  );
}
