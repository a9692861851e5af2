"use client";

import { useEffect, useRef, useState } from "react";
import { Button, type ButtonProps } from "./button";
import { SpinnerIcon } from "./icons";

/**
 * A submit button for plain HTML forms (they post without JavaScript too). Once its form is submitted it shows
 * the busy state and the form refuses a second submission. It is NOT disabled while busy: a disabled submitter
 * drops its own `name=value` from the form data, and the page may still be posting it.
 */
export function SubmitButton({ children, ...props }: Omit<ButtonProps, "type" | "loading">) {
  const ref = useRef<HTMLButtonElement>(null);
  const [isSubmitting, setSubmitting] = useState(false);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    let hasSubmitted = false;
    const onSubmit = (event: SubmitEvent) => {
      if (event.defaultPrevented) return;
      if (hasSubmitted) {
        event.preventDefault();
        return;
      }
      hasSubmitted = true;
      if (event.submitter === ref.current || !event.submitter) setSubmitting(true);
    };
    // Coming back to the page (bfcache) must not leave it busy.
    const onPageShow = () => {
      hasSubmitted = false;
      setSubmitting(false);
    };
    form.addEventListener("submit", onSubmit);
    window.addEventListener("pageshow", onPageShow);
    return () => {
      form.removeEventListener("submit", onSubmit);
      window.removeEventListener("pageshow", onPageShow);
    };
  }, []);
  return (
    <Button ref={ref} type="submit" aria-busy={isSubmitting || undefined} {...props}>
      {isSubmitting ? <SpinnerIcon /> : null}
      {children}
    </Button>
  );
}
