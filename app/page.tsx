import { headers } from "next/headers";
import { getT } from "@/app/_i18n/server";
import { canReadDevMail } from "@/server/mail/dev-mail";
import { docsHref } from "./docs/_lib/links";

// The development mail link depends on who asks (docs/security.md, "/dev/mail").
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const t = await getT();
  const showsDevMail = canReadDevMail(await headers());
  return (
    <main className="mx-auto max-w-3xl space-y-3 px-4 py-8 [&_ul]:list-disc [&_ul]:pl-6">
      <h1 className="text-2xl font-semibold">{t("app.name")}</h1>
      <p>{t("home.description")}</p>
      <ul>
        <li>
          <a href={docsHref()}>{t("home.docs")}</a>
        </li>
        <li>
          <a href="/v1/openapi.json">{t("home.openapi")}</a>
        </li>
        <li>
          <a href="/healthz">{t("home.health")}</a>
        </li>
        {showsDevMail ? (
          <li>
            <a href="/dev/mail">{t("home.devMail")}</a>
          </li>
        ) : null}
        <li>
          <a href="/signin">{t("home.signIn")}</a>
        </li>
      </ul>
    </main>
  );
}
