"use client";

import { clsx } from "clsx";
import { type ReactNode, useEffect, useRef } from "react";
import { ChevronDownIcon } from "./ui/icons";

/**
 * A native <details> disclosure holding a small form of choices: it opens and submits without JavaScript;
 * with it, Escape and a click outside close it, and Escape returns the focus to the toggle.
 */
export function DisclosureMenu({
  summary,
  children,
  className,
  testId,
}: {
  summary: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open) return;
      details.open = false;
      details.querySelector("summary")?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      if (details.open && !details.contains(event.target as Node)) details.open = false;
    };
    details.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      details.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, []);
  return (
    <details ref={ref} className={clsx("group relative", className)} data-testid={testId}>
      <summary className="inline-flex h-9 cursor-pointer list-none items-center gap-1.5 rounded-md px-2.5 text-sm font-medium text-fg hover:bg-surface-muted [&::-webkit-details-marker]:hidden">
        {summary}
        <ChevronDownIcon className="text-muted transition-transform group-open:rotate-180" />
      </summary>
      <div className="absolute right-0 z-40 mt-1 min-w-40 rounded-md border border-border bg-surface p-1 shadow-lg">
        {children}
      </div>
    </details>
  );
}
