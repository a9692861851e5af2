"use client";

import { clsx } from "clsx";
import { Checkbox as CheckboxPrimitive } from "radix-ui";
import type { ComponentProps } from "react";
import { CheckIcon } from "./icons";

/** A Radix checkbox (a button with role="checkbox"); `name`/`value` submit with a plain form. Label it with <Label htmlFor>. */
export function Checkbox({ className, ...props }: ComponentProps<typeof CheckboxPrimitive.Root>) {
  return (
    <CheckboxPrimitive.Root
      className={clsx(
        "inline-flex size-5 shrink-0 items-center justify-center rounded border border-border-strong bg-surface text-on-primary",
        "disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:border-primary data-[state=checked]:bg-primary",
        className,
      )}
      {...props}
    >
      <CheckboxPrimitive.Indicator>
        <CheckIcon className="size-4" />
      </CheckboxPrimitive.Indicator>
    </CheckboxPrimitive.Root>
  );
}
