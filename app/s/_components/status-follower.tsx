"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { useT } from "@/app/_i18n/client";
import { announce } from "./announcer";

const POLL_MS = 5000;

/**
 * Keeps the status page current: while the order is not final it asks the server for the page again every few
 * seconds (the server component re-reads the order), and says a new status out loud. Without JavaScript the page
 * shows the status as of loading, with a Refresh link.
 */
export function StatusFollower({
  statusKey,
  label,
  isFinal,
}: {
  statusKey: string;
  label: string;
  isFinal: boolean;
}) {
  const router = useRouter();
  const t = useT();
  const previous = useRef(statusKey);
  useEffect(() => {
    if (previous.current !== statusKey) announce(t("storefront.status.changed", { status: label }));
    previous.current = statusKey;
  }, [statusKey, label, t]);
  useEffect(() => {
    if (isFinal) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, POLL_MS);
    return () => window.clearInterval(timer);
  }, [isFinal, router]);
  return null;
}
