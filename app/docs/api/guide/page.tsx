import type { Metadata } from "next";
import { GuidePage } from "../../_components/guide-page";
import { renderGuide } from "../../_lib/markdown";

/** /docs/api/guide: docs/api.md, the conventions of /v1 (the reference itself is /docs/api). */
export function generateMetadata(): Metadata {
  return { title: renderGuide("api/guide").title };
}

export default function ApiGuide() {
  return <GuidePage slug="api/guide" />;
}
