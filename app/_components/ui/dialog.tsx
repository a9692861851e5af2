"use client";

import { clsx } from "clsx";
import { Dialog as DialogPrimitive } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { useT } from "@/app/_i18n/client";
import { CloseIcon } from "./icons";

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

const PLACEMENT = {
  center:
    "top-1/2 left-1/2 w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 rounded-lg border border-border p-6",
  /** A sheet from the left edge (the dashboard's navigation on small screens). */
  left: "inset-y-0 left-0 h-full w-[min(20rem,calc(100vw-3rem))] border-r border-border p-4",
} as const;

/**
 * The dialog's panel, with its overlay and a labelled close button. Give it a <DialogTitle> (Radix requires
 * one for the accessible name) and, usually, a <DialogDescription>.
 */
export function DialogContent({
  side = "center",
  className,
  children,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & { side?: keyof typeof PLACEMENT }) {
  const t = useT();
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-overlay" />
      <DialogPrimitive.Content
        className={clsx(
          "fixed z-50 overflow-y-auto bg-surface text-fg shadow-xl focus:outline-none",
          PLACEMENT[side],
          className,
        )}
        {...props}
      >
        {children}
        <DialogPrimitive.Close
          className="absolute top-3 right-3 inline-flex size-9 items-center justify-center rounded-md text-muted hover:bg-surface-muted hover:text-fg"
          aria-label={t("common.close")}
        >
          <CloseIcon />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={clsx("pr-10 text-lg font-semibold", className)} {...props} />;
}

export function DialogDescription({
  className,
  ...props
}: ComponentProps<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description className={clsx("mt-1 text-sm text-muted", className)} {...props} />;
}

export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}
