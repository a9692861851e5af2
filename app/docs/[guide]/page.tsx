import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { GuidePage } from "../_components/guide-page";
import { type GuideSlug, isGuideSlug, renderGuide } from "../_lib/markdown";

/** /docs/webhooks, /docs/graphql, /docs/mcp, /docs/operations: guides rendered from docs/*.md. */
const SLUGS = ["webhooks", "graphql", "mcp", "operations"] as const satisfies readonly GuideSlug[];

function guideOf(value: string): GuideSlug | null {
  return (SLUGS as readonly string[]).includes(value) && isGuideSlug(value) ? value : null;
}

export const dynamicParams = false;

export function generateStaticParams(): Array<{ guide: string }> {
  return SLUGS.map((guide) => ({ guide }));
}

export async function generateMetadata({
  params,
}: {
  params: Promise<{ guide: string }>;
}): Promise<Metadata> {
  const slug = guideOf((await params).guide);
  return slug ? { title: renderGuide(slug).title } : {};
}

export default async function Guide({ params }: { params: Promise<{ guide: string }> }) {
  const slug = guideOf((await params).guide);
  if (!slug) notFound();
  return <GuidePage slug={slug} />;
}
