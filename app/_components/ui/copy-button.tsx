"use client";

import { useEffect, useRef, useState } from "react";
import { useT } from "@/app/_i18n/client";
import { Button, type ButtonSize, type ButtonVariant } from "./button";
import { CheckIcon, CopyIcon } from "./icons";

async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (no permission, or not a secure context): the old way.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/**
 * Copies `value` (a key, a signing secret) to the clipboard. The result is announced through a polite live
 * region ("Copied"), and the button shows it for two seconds. `label` names what is copied ("Copy key").
 */
export function CopyButton({
  value,
  label,
  variant = "secondary",
  size = "sm",
  className,
}: {
  value: string;
  label?: string;
  variant?: ButtonVariant;
  size?: ButtonSize;
  className?: string;
}) {
  const t = useT();
  const [status, setStatus] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    const ok = await writeClipboard(value);
    setStatus(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setStatus("idle"), 2000);
  };
  return (
    <>
      <Button variant={variant} size={size} className={className} onClick={copy} data-testid="copy-button">
        {status === "copied" ? <CheckIcon /> : <CopyIcon />}
        {status === "copied" ? t("common.copied") : (label ?? t("common.copy"))}
      </Button>
      <span aria-live="polite" className="sr-only">
        {status === "copied" ? t("common.copied") : status === "failed" ? t("common.copyFailed") : ""}
      </span>
    </>
  );
}
