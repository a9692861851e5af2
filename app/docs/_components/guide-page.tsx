import { Notice } from "@/app/_components/ui/notice";
import { getLanguage, getT } from "@/app/_i18n/server";
import { type GuideSlug, renderGuide } from "../_lib/markdown";
import { DocsShell } from "./docs-shell";

/**
 * One guide of docs/ rendered on the server (no client JavaScript to read it); the HTML is parsed once per process
 * (app/docs/_lib/markdown.ts). The guides are written in English: readers in es and pt are told so.
 */
export async function GuidePage({ slug }: { slug: GuideSlug }) {
  const [t, language] = await Promise.all([getT(), getLanguage()]);
  const guide = renderGuide(slug);
  return (
    <DocsShell current={`/docs/${slug}`} headings={guide.headings}>
      {language !== "en" ? (
        <Notice tone="info" className="mb-6">
          {t("docs.englishOnly")}
        </Notice>
      ) : null}
      {/* Our own files, rendered by our renderer: raw HTML in them is escaped (app/docs/_lib/markdown.ts). */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the repository's own markdown, HTML escaped */}
      <article className="doc-prose" lang="en" dangerouslySetInnerHTML={{ __html: guide.html }} />
    </DocsShell>
  );
}
