"use client";

import { clsx } from "clsx";
import { Toast as ToastPrimitive } from "radix-ui";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { useT } from "@/app/_i18n/client";
import { CloseIcon } from "./icons";

type ToastVariant = "neutral" | "success" | "danger";
type ToastInput = { title: string; description?: string; variant?: ToastVariant; durationMs?: number };
type ToastItem = ToastInput & { id: number };

const ToastContext = createContext<((toast: ToastInput) => void) | null>(null);

const VARIANTS: Record<ToastVariant, string> = {
  neutral: "border-border",
  success: "border-success border-l-4",
  danger: "border-danger border-l-4",
};

/**
 * Short confirmations ("Copied", "Saved") in a Radix Toast region: announced politely by screen readers
 * (F8 jumps to them), gone after a few seconds. The root layout mounts it once; call `useToast()`.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const t = useT();
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  const show = useCallback((input: ToastInput) => {
    setToasts((list) => [...list.slice(-2), { ...input, id: Date.now() + Math.random() }]);
  }, []);
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right" label={t("common.notification")}>
        {children}
        {toasts.map((toast) => (
          <ToastPrimitive.Root
            key={toast.id}
            duration={toast.durationMs ?? 4000}
            onOpenChange={(open) => {
              if (!open) setToasts((list) => list.filter((item) => item.id !== toast.id));
            }}
            className={clsx(
              "relative rounded-md border bg-surface py-3 pr-10 pl-4 text-fg shadow-lg",
              VARIANTS[toast.variant ?? "neutral"],
            )}
          >
            <ToastPrimitive.Title className="text-sm font-semibold">{toast.title}</ToastPrimitive.Title>
            {toast.description ? (
              <ToastPrimitive.Description className="mt-0.5 text-sm text-muted">
                {toast.description}
              </ToastPrimitive.Description>
            ) : null}
            <ToastPrimitive.Close
              className="absolute top-2 right-2 inline-flex size-7 items-center justify-center rounded text-muted hover:bg-surface-muted hover:text-fg"
              aria-label={t("common.close")}
            >
              <CloseIcon />
            </ToastPrimitive.Close>
          </ToastPrimitive.Root>
        ))}
        <ToastPrimitive.Viewport
          label={t("common.notificationsRegion", { hotkey: "{hotkey}" })}
          className="fixed right-0 bottom-0 z-[60] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none"
        />
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}

/** `const toast = useToast(); toast({ title: t("common.saved"), variant: "success" })`. */
export function useToast(): (toast: ToastInput) => void {
  const toast = useContext(ToastContext);
  if (!toast) throw new Error("useToast() needs <Toaster> (the root layout provides it)");
  return toast;
}
