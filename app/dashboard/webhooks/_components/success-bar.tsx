import { clsx } from "clsx";
import { successRate } from "./format";

/**
 * A 24-hour success-rate bar: the filled part is the share of successful attempts. The text beside it says the
 * same (never colour only); the bar itself is decorative.
 */
export function SuccessBar({
  attempts,
  successes,
  label,
  emptyLabel,
}: {
  attempts: number;
  successes: number;
  /** e.g. "97% of 120 attempts" */
  label: string;
  emptyLabel: string;
}) {
  const rate = successRate(attempts, successes);
  return (
    <div className="flex min-w-32 flex-col gap-1">
      <div
        aria-hidden="true"
        className="h-2 w-full overflow-hidden rounded-full bg-surface-muted ring-1 ring-border-strong"
      >
        {rate !== null ? (
          <div
            className={clsx("h-full", rate >= 95 ? "bg-success" : rate >= 50 ? "bg-warning" : "bg-danger")}
            style={{ width: `${rate}%` }}
          />
        ) : null}
      </div>
      <span className="text-xs text-muted">{rate === null ? emptyLabel : label}</span>
    </div>
  );
}
