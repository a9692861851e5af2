import type { ReactNode } from "react";
import { Notice } from "@/app/_components/ui/notice";

/** What an action on the endpoint page last answered: shown as a notice under its controls. */
export type ActionResult = { tone: "success" | "danger"; text: string };

/**
 * One action of the endpoint page (Send test event, Recover): a titled panel with a line of description, its
 * controls in a row, the last result (a status, or an alert for an error) and anything that follows it.
 */
export function ActionPanel({
  id,
  title,
  description,
  result,
  after,
  children,
}: {
  id: string;
  title: string;
  description: string;
  result: ActionResult | null;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${id}-title`}
      className="space-y-3 rounded-lg border border-border bg-surface p-5"
    >
      <h2 id={`${id}-title`} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="text-sm text-muted">{description}</p>
      <div className="flex flex-wrap items-end gap-3">{children}</div>
      {result ? (
        <Notice tone={result.tone} role={result.tone === "danger" ? "alert" : "status"}>
          {result.text}
        </Notice>
      ) : null}
      {after}
    </section>
  );
}
