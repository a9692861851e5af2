"use client";

import { useEffect, useState } from "react";
import { Input } from "@/app/_components/ui/input";
import { useLanguage } from "@/app/_i18n/client";
import { CURRENCY_CODES } from "@/server/storefronts/enums";

/**
 * The currency as a searchable list (a text input with the spec's 155 codes as suggestions, each with its name in
 * the interface language). Anything typed is sent as typed, so a code outside the list is refused by /v1's
 * schema on this field. The suggestions are added after hydration: the server's page stays small.
 */
export function CurrencyInput(props: {
  id?: string;
  value: string;
  onChange: (value: string) => void;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
  required?: boolean;
}) {
  const language = useLanguage();
  const [isMounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const listId = `${props.id ?? "currency"}-options`;
  return (
    <>
      <Input
        id={props.id}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        list={listId}
        autoComplete="off"
        spellCheck={false}
        maxLength={3}
        className="uppercase sm:max-w-48"
        required={props.required}
        aria-describedby={props["aria-describedby"]}
        aria-invalid={props["aria-invalid"]}
      />
      {isMounted ? <CurrencyOptions id={listId} language={language} /> : null}
    </>
  );
}

function CurrencyOptions({ id, language }: { id: string; language: string }) {
  const names = new Intl.DisplayNames([language], { type: "currency" });
  return (
    <datalist id={id}>
      {CURRENCY_CODES.map((code) => (
        <option key={code} value={code}>
          {names.of(code)}
        </option>
      ))}
    </datalist>
  );
}
