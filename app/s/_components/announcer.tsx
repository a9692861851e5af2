"use client";

import { useEffect, useState } from "react";

const EVENT = "marea:announce";

/** Says `message` to screen readers through the page's one polite live region (see <Announcer>). */
export function announce(message: string): void {
  window.dispatchEvent(new CustomEvent(EVENT, { detail: message }));
}

/** The page's polite live region: "added to your cart" and similar news, without moving focus. */
export function Announcer() {
  const [message, setMessage] = useState("");
  useEffect(() => {
    const onAnnounce = (event: Event) => {
      const text = String((event as CustomEvent).detail ?? "");
      // Clear first, so the same news twice is read twice.
      setMessage("");
      window.setTimeout(() => setMessage(text), 50);
    };
    window.addEventListener(EVENT, onAnnounce);
    return () => window.removeEventListener(EVENT, onAnnounce);
  }, []);
  return (
    <div role="status" aria-live="polite" className="sr-only">
      {message}
    </div>
  );
}
