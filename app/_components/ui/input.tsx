import { clsx } from "clsx";
import type { InputHTMLAttributes, TextareaHTMLAttributes } from "react";

const CONTROL =
  "w-full rounded-md border border-border-strong bg-surface px-3 text-fg placeholder:text-muted " +
  "disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-danger aria-invalid:ring-1 aria-invalid:ring-danger";

export function Input({ className, type, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return (
    <input
      type={type ?? "text"}
      className={clsx(CONTROL, "h-10 text-base sm:text-sm", className)}
      {...props}
    />
  );
}

export function Textarea({ className, rows, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <textarea rows={rows ?? 4} className={clsx(CONTROL, "py-2 text-base sm:text-sm", className)} {...props} />
  );
}
