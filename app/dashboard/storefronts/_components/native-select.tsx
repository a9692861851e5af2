import { clsx } from "clsx";
import type { SelectHTMLAttributes } from "react";

/**
 * A plain <select> with the inputs' look: long lists (42 business types) stay native, keyboard-searchable and
 * cheap to render.
 */
export function NativeSelect({
  options,
  className,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & { options: Array<{ value: string; label: string }> }) {
  return (
    <select
      className={clsx(
        "h-10 w-full rounded-md border border-border-strong bg-surface px-3 text-base text-fg sm:text-sm",
        "disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-danger aria-invalid:ring-1 aria-invalid:ring-danger",
        className,
      )}
      {...props}
    >
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}
