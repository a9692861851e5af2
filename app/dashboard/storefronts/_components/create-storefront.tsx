"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Button } from "@/app/_components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
  DialogTrigger,
} from "@/app/_components/ui/dialog";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPCClient } from "@/app/_trpc/client";
import { isAppError, messageFor } from "@/server/errors";
import type { PlanUsageDto } from "@/server/storefronts/dto";
import { CreateStorefrontInput } from "@/server/storefronts/schema";
import { parseInput } from "@/server/validation";
import { CurrencyInput } from "./currency-field";
import { NativeSelect } from "./native-select";
import { UpgradePrompt } from "./upgrade-prompt";

type Failure = { param: string | null; message: string; upgradeUrl?: string | null; isPlanLimit?: boolean };

/**
 * "New storefront": name, currency, language and WhatsApp (set once: PATCH refuses it later), validated with
 * /v1's CreateStorefrontInput before it is sent; the plan's limit (402) is shown as an upgrade prompt.
 */
export function CreateStorefront({
  usage,
  defaultLanguage,
}: {
  usage: PlanUsageDto;
  defaultLanguage: string;
}) {
  const t = useT();
  const language = useLanguage();
  const client = useTRPCClient();
  const router = useRouter();
  const [isOpen, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [currency, setCurrency] = useState("");
  const [storeLanguage, setStoreLanguage] = useState(defaultLanguage);
  const [whatsapp, setWhatsapp] = useState("");
  const [failure, setFailure] = useState<Failure | null>(null);
  const [isBusy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const body = {
      name,
      currency: currency.trim().toUpperCase(),
      language: storeLanguage,
      ...(whatsapp.trim() ? { whatsapp: whatsapp.trim() } : {}),
    };
    let input: CreateStorefrontInput;
    try {
      input = parseInput(CreateStorefrontInput, body, language);
    } catch (error) {
      if (!isAppError(error)) throw error;
      setFailure({ param: error.options.param ?? null, message: messageFor(error, language) });
      return;
    }
    setBusy(true);
    try {
      const created = await client.storefronts.create.mutate(input);
      router.push(`/dashboard/storefronts/${created.storefront.id}`);
    } catch (error) {
      const caught = catalogueError(error);
      setFailure({
        param: caught?.param ?? null,
        message: caught?.message ?? t("storefronts.networkError"),
        upgradeUrl: caught?.upgrade?.upgradeUrl,
        isPlanLimit: caught?.type === "plan_limit",
      });
      setBusy(false);
    }
  }

  const fieldError = (param: string) => (failure?.param === param ? failure.message : undefined);
  const isFieldError = failure?.param && ["name", "currency", "language", "whatsapp"].includes(failure.param);
  return (
    <Dialog open={isOpen} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>{t("storefronts.create.open")}</Button>
      </DialogTrigger>
      <DialogContent>
        <DialogTitle>{t("storefronts.create.title")}</DialogTitle>
        <DialogDescription>{t("storefronts.create.description")}</DialogDescription>
        <form onSubmit={submit} noValidate className="mt-4 space-y-4">
          {failure?.isPlanLimit ? (
            <UpgradePrompt message={failure.message} usage={usage} upgradeUrl={failure.upgradeUrl} />
          ) : failure && !isFieldError ? (
            <Notice tone="danger" role="alert">
              {failure.message}
            </Notice>
          ) : null}
          <Field id="new-name" label={t("storefronts.field.name")} error={fieldError("name")}>
            <Input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
          </Field>
          <Field
            id="new-currency"
            label={t("storefronts.field.currency")}
            hint={t("storefronts.field.currencyHint")}
            error={fieldError("currency")}
          >
            <CurrencyInput value={currency} onChange={setCurrency} required />
          </Field>
          <Field id="new-language" label={t("storefronts.field.language")} error={fieldError("language")}>
            <NativeSelect
              value={storeLanguage}
              onChange={(e) => setStoreLanguage(e.target.value)}
              options={[
                { value: "es", label: "Español" },
                { value: "en", label: "English" },
                { value: "pt", label: "Português" },
              ]}
            />
          </Field>
          <Field
            id="new-whatsapp"
            label={t("storefronts.field.whatsapp")}
            optionalLabel={t("common.optional")}
            hint={t("storefronts.create.whatsappHint")}
            error={fieldError("whatsapp")}
          >
            <Input
              type="tel"
              value={whatsapp}
              onChange={(e) => setWhatsapp(e.target.value)}
              placeholder="+5215512345678"
            />
          </Field>
          <DialogFooter>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              {t("common.cancel")}
            </Button>
            <Button type="submit" loading={isBusy}>
              {t("storefronts.create.submit")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
