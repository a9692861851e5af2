import { translator } from "@/app/_i18n/catalogue";

/** A wrong or missing status token, or an order that is not there: 404 in the three languages. */
export default function OrderNotFound() {
  return (
    <main className="mx-auto max-w-xl space-y-6 px-4 py-16">
      {(["es", "pt", "en"] as const).map((language, index) => {
        const t = translator(language);
        const Heading = index === 0 ? "h1" : "h2";
        return (
          <div key={language} lang={language} className="space-y-1">
            <Heading className={index === 0 ? "text-2xl font-semibold" : "text-lg font-semibold"}>
              {t("storefront.orderNotFound.title")}
            </Heading>
            <p className="text-muted">{t("storefront.orderNotFound.body")}</p>
          </div>
        );
      })}
    </main>
  );
}
