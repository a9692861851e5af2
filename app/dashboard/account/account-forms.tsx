"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Button } from "@/app/_components/ui/button";
import { Field } from "@/app/_components/ui/field";
import { Notice } from "@/app/_components/ui/notice";
import { Select } from "@/app/_components/ui/select";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { ErrorObject } from "@/server/errors";

type Language = "es" | "en" | "pt";

/** Each language is named in itself, whatever the interface language (as the header's switcher does). */
const LANGUAGE_NAMES: Record<Language, string> = { es: "Español", en: "English", pt: "Português" };

/**
 * The account's language: saved on the account (its mails), then posted to /preferences so the dashboard
 * switches too (the `marea_lang` cookie comes before the account's language; docs/ui.md, "Interface text").
 */
export function LanguageForm({ accountLanguage }: { accountLanguage: Language }) {
  const t = useT();
  const trpc = useTRPC();
  const [language, setLanguage] = useState<Language>(accountLanguage);
  const [error, setError] = useState<ErrorObject | null>(null);
  const preferences = useRef<HTMLFormElement>(null);
  const save = useMutation(
    trpc.accounts.setLanguage.mutationOptions({
      onSuccess: () => preferences.current?.submit(),
      onError: (failure) => setError(catalogueError(failure)),
    }),
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    save.mutate({ language });
  };
  return (
    <form ref={preferences} method="post" action="/preferences" onSubmit={submit} className="space-y-4">
      <input type="hidden" name="lang" value={language} />
      <Field
        id="account-language"
        label={t("account.language.label")}
        error={error?.message}
        className="max-w-xs"
      >
        <Select
          options={(Object.keys(LANGUAGE_NAMES) as Language[]).map((value) => ({
            value,
            label: LANGUAGE_NAMES[value],
          }))}
          value={language}
          onValueChange={(value) => setLanguage(value as Language)}
        />
      </Field>
      <Button type="submit" variant="secondary" loading={save.isPending}>
        {t("account.language.save")}
      </Button>
    </form>
  );
}

export function AcceptTermsButton({ version }: { version: string }) {
  const t = useT();
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const accept = useMutation(
    trpc.accounts.acceptTerms.mutationOptions({
      onSuccess: () => router.refresh(),
      onError: (failure) => setError(catalogueError(failure)?.message ?? failure.message),
    }),
  );
  return (
    <div className="space-y-2">
      {error ? (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      ) : null}
      <Button onClick={() => accept.mutate({ version })} loading={accept.isPending}>
        {t("account.terms.accept", { version })}
      </Button>
    </div>
  );
}

/**
 * Cancels the account (`user.cancelled`, reason `user_clicked_cancel`) after a confirmation, then signs out
 * through /signout, which lands on /signin saying the account was cancelled.
 */
export function CancelAccount({ email }: { email: string }) {
  const t = useT();
  const trpc = useTRPC();
  const signOut = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<string | null>(null);
  const cancel = useMutation(
    trpc.accounts.cancel.mutationOptions({
      onSuccess: () => signOut.current?.submit(),
      onError: (failure) => setError(catalogueError(failure)?.message ?? failure.message),
    }),
  );
  return (
    <div className="space-y-3">
      {error ? (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      ) : null}
      <form ref={signOut} method="post" action="/signout" hidden>
        <input type="hidden" name="after" value="cancelled" />
      </form>
      <ConfirmDialog
        trigger={
          <Button variant="danger" loading={cancel.isPending}>
            {t("account.cancel.button")}
          </Button>
        }
        title={t("account.cancel.confirmTitle")}
        description={t("account.cancel.confirmBody", { email })}
        cancelLabel={t("common.cancel")}
        actionLabel={t("account.cancel.confirm")}
        onAction={() => cancel.mutate({})}
      />
    </div>
  );
}

/**
 * The owner's switch for the partner that bootstrapped the account (docs/ui.md, "Account"; docs/api.md, "Partner
 * access"): allowing asks for a confirmation (the partner can then mint keys that act on the account), turning it
 * off does not (it only takes a power away).
 */
export function PartnerAccessForm({ partner, hasAccess }: { partner: string; hasAccess: boolean }) {
  const t = useT();
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const save = useMutation(
    trpc.accounts.setPartnerAccess.mutationOptions({
      onSuccess: () => router.refresh(),
      onError: (failure) => setError(catalogueError(failure)?.message ?? failure.message),
    }),
  );
  return (
    <div className="space-y-2">
      {error ? (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      ) : null}
      {hasAccess ? (
        <Button
          variant="secondary"
          loading={save.isPending}
          onClick={() => save.mutate({ hasAccess: false })}
        >
          {t("account.partner.revoke")}
        </Button>
      ) : (
        <ConfirmDialog
          trigger={
            <Button variant="secondary" loading={save.isPending}>
              {t("account.partner.grant")}
            </Button>
          }
          title={t("account.partner.grantTitle")}
          description={t("account.partner.grantBody", { partner })}
          cancelLabel={t("common.cancel")}
          actionLabel={t("account.partner.grantConfirm")}
          onAction={() => save.mutate({ hasAccess: true })}
        />
      )}
    </div>
  );
}
