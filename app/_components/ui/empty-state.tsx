import { clsx } from "clsx";
import type { ReactNode } from "react";
import { InboxIcon } from "./icons";

/** What a list shows when it has nothing yet: a title, one sentence, and usually the action that fills it. */
export function EmptyState({
  title,
  description,
  action,
  headingLevel = "h2",
  className,
}: {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  headingLevel?: "h2" | "h3";
  className?: string;
}) {
  const Heading = headingLevel;
  return (
    <div
      className={clsx(
        "flex flex-col items-center rounded-lg border border-dashed border-border-strong bg-surface px-6 py-10 text-center",
        className,
      )}
    >
      <InboxIcon className="size-8 text-muted" />
      <Heading className="mt-3 text-base font-semibold text-fg">{title}</Heading>
      {description ? <p className="mt-1 max-w-md text-sm text-muted">{description}</p> : null}
      {action ? <div className="mt-5">{action}</div> : null}
    </div>
  );
}
