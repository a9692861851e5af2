"use client";

import { clsx } from "clsx";
import { Switch as SwitchPrimitive } from "radix-ui";
import type { ComponentProps } from "react";

/** A Radix switch (role="switch", aria-checked); label it with <Label htmlFor>. */
export function Switch({ className, ...props }: ComponentProps<typeof SwitchPrimitive.Root>) {
  return (
    <SwitchPrimitive.Root
      className={clsx(
        "relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border border-border-strong bg-surface-muted transition-colors",
        "disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:border-primary data-[state=checked]:bg-primary",
        className,
      )}
      {...props}
    >
      <SwitchPrimitive.Thumb className="block size-4 translate-x-1 rounded-full bg-border-strong transition-transform data-[state=checked]:translate-x-6 data-[state=checked]:bg-on-primary" />
    </SwitchPrimitive.Root>
  );
}
