import { clsx } from "clsx";

/** A placeholder block while content loads. Hidden from assistive technology: announce loading elsewhere. */
export function Skeleton({ className }: { className?: string }) {
  return (
    <div
      aria-hidden="true"
      className={clsx("animate-pulse rounded-md bg-surface-muted", className ?? "h-4 w-full")}
    />
  );
}
