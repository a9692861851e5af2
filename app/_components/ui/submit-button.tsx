"use client";

import { useEffect, useRef, useState } from "react";
import { Button, type ButtonProps } from "./button";

/**
 * A submit button for plain HTML forms (they post without JavaScript too): once its form is submitted it
 * shows the loading state, so a second click cannot send the form twice. `name`/`value` go with the form as
 * usual.
 */
export function SubmitButton(props: Omit<ButtonProps, "type" | "loading">) {
  const ref = useRef<HTMLButtonElement>(null);
  const [isSubmitting, setSubmitting] = useState(false);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    const onSubmit = (event: SubmitEvent) => {
      // Only the button that sent the form turns busy; the others are just blocked by the form's navigation.
      if (!event.defaultPrevented && (event.submitter === ref.current || !event.submitter))
        setSubmitting(true);
    };
    // bfcache: coming back to the page must not leave the button spinning.
    const onPageShow = () => setSubmitting(false);
    form.addEventListener("submit", onSubmit);
    window.addEventListener("pageshow", onPageShow);
    return () => {
      form.removeEventListener("submit", onSubmit);
      window.removeEventListener("pageshow", onPageShow);
    };
  }, []);
  return <Button ref={ref} type="submit" loading={isSubmitting} {...props} />;
}
