import type { ReactNode } from "react";
import "./docs.css";

/** /docs: the developer documentation (docs/ui.md, "Developer documentation"). Each page renders its DocsShell. */
export default function DocsLayout({ children }: { children: ReactNode }) {
  return children;
}
