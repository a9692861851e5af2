"use client";

import { AlertDialog as AlertDialogPrimitive } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { type ButtonVariant, buttonClasses } from "./button";

/**
 * A confirmation that interrupts (role="alertdialog"): the focus starts on Cancel, Escape cancels, and the
 * action is explicit.
 *
 * ```tsx
 * <ConfirmDialog trigger={<Button variant="danger">Delete</Button>} title=… description=…
 *   cancelLabel={t("common.cancel")} actionLabel=… onAction={…} />
 * ```
 */
export function ConfirmDialog({
  trigger,
  title,
  description,
  cancelLabel,
  actionLabel,
  actionVariant = "danger",
  onAction,
  actionAsChild,
  open,
  onOpenChange,
}: {
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  cancelLabel: string;
  actionLabel: ReactNode;
  actionVariant?: ButtonVariant;
  onAction?: () => void;
  /** Renders the action as the given element, e.g. a submit button of a form: `<button form="id">`. */
  actionAsChild?: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
}) {
  return (
    <AlertDialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <AlertDialogPrimitive.Trigger asChild>{trigger}</AlertDialogPrimitive.Trigger> : null}
      <AlertDialogContent>
        <AlertDialogPrimitive.Title className="text-lg font-semibold">{title}</AlertDialogPrimitive.Title>
        <AlertDialogPrimitive.Description className="mt-2 text-sm text-muted">
          {description}
        </AlertDialogPrimitive.Description>
        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <AlertDialogPrimitive.Cancel className={buttonClasses("secondary")}>
            {cancelLabel}
          </AlertDialogPrimitive.Cancel>
          {actionAsChild ? (
            <AlertDialogPrimitive.Action asChild>{actionAsChild}</AlertDialogPrimitive.Action>
          ) : (
            <AlertDialogPrimitive.Action className={buttonClasses(actionVariant)} onClick={onAction}>
              {actionLabel}
            </AlertDialogPrimitive.Action>
          )}
        </div>
      </AlertDialogContent>
    </AlertDialogPrimitive.Root>
  );
}

export function AlertDialogContent({
  children,
  ...props
}: ComponentProps<typeof AlertDialogPrimitive.Content>) {
  return (
    <AlertDialogPrimitive.Portal>
      <AlertDialogPrimitive.Overlay className="fixed inset-0 z-40 bg-overlay" />
      <AlertDialogPrimitive.Content
        className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg border border-border bg-surface p-6 text-fg shadow-xl focus:outline-none"
        {...props}
      >
        {children}
      </AlertDialogPrimitive.Content>
    </AlertDialogPrimitive.Portal>
  );
}

export const AlertDialog = AlertDialogPrimitive.Root;
export const AlertDialogTrigger = AlertDialogPrimitive.Trigger;
export const AlertDialogTitle = AlertDialogPrimitive.Title;
export const AlertDialogDescription = AlertDialogPrimitive.Description;
export const AlertDialogAction = AlertDialogPrimitive.Action;
export const AlertDialogCancel = AlertDialogPrimitive.Cancel;
