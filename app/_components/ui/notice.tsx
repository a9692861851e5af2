import { clsx } from "clsx";
import type { ReactNode } from "react";
import { AlertIcon, CheckIcon } from "./icons";

type NoticeTone = "info" | "success" | "danger";

const TONES: Record<NoticeTone, string> = {
  info: "border-primary bg-primary-soft",
  success: "border-success bg-success-soft",
  danger: "border-danger bg-danger-soft",
};

/**
 * A message about the whole form or page (a field's own error goes next to it, through <Field>). `role`:
 * "alert" for an error that just happened, "status" for a confirmation.
 */
export function Notice({
  tone = "info",
  role,
  className,
  children,
}: {
  tone?: NoticeTone;
  role?: "alert" | "status";
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      role={role}
      className={clsx(
        "flex items-start gap-2 rounded-md border-l-4 px-3 py-2.5 text-sm text-fg",
        TONES[tone],
        className,
      )}
    >
      {tone === "success" ? (
        <CheckIcon className="mt-0.5 shrink-0 text-success" />
      ) : (
        <AlertIcon className={clsx("mt-0.5 shrink-0", tone === "danger" ? "text-danger" : "text-primary")} />
      )}
      <div className="min-w-0">{children}</div>
    </div>
  );
}
