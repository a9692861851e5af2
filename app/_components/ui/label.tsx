import { clsx } from "clsx";
import type { LabelHTMLAttributes } from "react";

export function Label({ className, ...props }: LabelHTMLAttributes<HTMLLabelElement>) {
  // biome-ignore lint/a11y/noLabelWithoutControl: callers pass htmlFor (Field always does)
  return <label className={clsx("block text-sm font-medium text-fg", className)} {...props} />;
}
