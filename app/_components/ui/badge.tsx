import { clsx } from "clsx";
import type { HTMLAttributes } from "react";

export type BadgeTone = "neutral" | "info" | "success" | "warning" | "danger";

const TONES: Record<BadgeTone, string> = {
  neutral: "border-border bg-surface-muted text-fg",
  info: "border-transparent bg-primary-soft text-primary",
  success: "border-transparent bg-success-soft text-success",
  warning: "border-transparent bg-warning-soft text-warning",
  danger: "border-transparent bg-danger-soft text-danger",
};

/** A short status label. The colour repeats the text; the text alone must say it (never colour only). */
export function Badge({
  tone = "neutral",
  className,
  ...props
}: HTMLAttributes<HTMLSpanElement> & { tone?: BadgeTone }) {
  return (
    <span
      className={clsx(
        "inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap",
        TONES[tone],
        className,
      )}
      {...props}
    />
  );
}

/** The tone of the statuses the dashboard shows (accounts, deliveries, orders, endpoints). */
export function statusTone(status: string): BadgeTone {
  switch (status) {
    case "verified":
    case "delivered":
    case "success":
    case "paid":
    case "enabled":
    case "published":
      return "success";
    case "unverified":
    case "pending":
    case "paused":
      return "warning";
    case "cancelled":
    case "failed":
    case "failure":
    case "max_attempts_reached":
    case "revoked":
      return "danger";
    default:
      return "neutral";
  }
}
