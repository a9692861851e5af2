"use client";

import { clsx } from "clsx";
import { Tabs as TabsPrimitive } from "radix-ui";
import type { ComponentProps } from "react";

export const Tabs = TabsPrimitive.Root;

/** Give the list an aria-label that names what the tabs switch between. */
export function TabsList({ className, ...props }: ComponentProps<typeof TabsPrimitive.List>) {
  return (
    <TabsPrimitive.List
      className={clsx("flex max-w-full gap-1 overflow-x-auto border-b border-border", className)}
      {...props}
    />
  );
}

export function TabsTrigger({ className, ...props }: ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={clsx(
        "-mb-px shrink-0 border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted hover:text-fg",
        "data-[state=active]:border-primary data-[state=active]:text-fg",
        className,
      )}
      {...props}
    />
  );
}

export function TabsContent({ className, ...props }: ComponentProps<typeof TabsPrimitive.Content>) {
  return <TabsPrimitive.Content className={clsx("pt-4", className)} {...props} />;
}
