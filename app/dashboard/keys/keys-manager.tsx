"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Badge } from "@/app/_components/ui/badge";
import { Button, buttonClasses } from "@/app/_components/ui/button";
import { CodeBlock } from "@/app/_components/ui/code-block";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogTitle,
  DialogTrigger,
} from "@/app/_components/ui/dialog";
import { EmptyState } from "@/app/_components/ui/empty-state";
import { Field } from "@/app/_components/ui/field";
import { Input } from "@/app/_components/ui/input";
import { Notice } from "@/app/_components/ui/notice";
import { Table, TableCaption, TableContainer, TBody, Td, THead, Th, Tr } from "@/app/_components/ui/table";
import { useToast } from "@/app/_components/ui/toast";
import { plural } from "@/app/_i18n/catalogue";
import { useLanguage, useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";
import type { AccountKeyDto } from "@/server/accounts/schema";
import type { ErrorObject } from "@/server/errors";
import { formatDateTime, formatNumber } from "../_lib/format";
import { ConnectedAppBadge } from "../oauth/_components/connected-app-badge";

type Kind = AccountKeyDto["kind"];

/**
 * The keys table with create and revoke (docs/ui.md, "API keys"). The raw key of a new key lives only in this
 * component's state while its dialog is open; closing the dialog drops it, and no query ever returns it again.
 */
export function KeysManager({ initialKeys }: { initialKeys: AccountKeyDto[] }) {
  const t = useT();
  const language = useLanguage();
  const trpc = useTRPC();
  const keys = useQuery({ ...trpc.accounts.listKeys.queryOptions(), initialData: initialKeys });
  const list = keys.data ?? [];
  return (
    <div className="space-y-4">
      <div className="flex justify-end">
        <CreateKeyDialog />
      </div>
      {list.length === 0 ? (
        <EmptyState title={t("keys.empty")} description={t("keys.emptyBody")} />
      ) : (
        <TableContainer label={t("keys.caption")}>
          <Table>
            <TableCaption className="sr-only">{t("keys.caption")}</TableCaption>
            <THead>
              <Tr>
                <Th>{t("keys.colKey")}</Th>
                <Th>{t("keys.colCreated")}</Th>
                <Th>{t("keys.colLastUsed")}</Th>
                <Th>{t("keys.colBudget")}</Th>
                <Th>
                  <span className="sr-only">{t("keys.colActions")}</span>
                </Th>
              </Tr>
            </THead>
            <TBody>
              {list.map((key) => (
                <Tr key={key.id} data-testid="api-key-row" data-key-id={key.id}>
                  <Td>
                    <div className="flex flex-wrap items-center gap-2">
                      <span className="font-medium text-fg">{key.name ?? t("keys.unnamed")}</span>
                      <Badge tone={key.kind === "developer" ? "info" : "neutral"}>
                        <span className="sr-only">{t("keys.colKind")}: </span>
                        {t(`keys.kind.${key.kind}`)}
                      </Badge>
                      {key.source === "oauth" ? <ConnectedAppBadge appName={key.name} /> : null}
                    </div>
                    <code className="mt-1 block text-xs whitespace-nowrap text-muted">{key.prefix}</code>
                    <ul className="mt-2 flex min-w-48 flex-wrap gap-1" aria-label={t("keys.colScopes")}>
                      {key.scopes.map((scope) => (
                        <li key={scope}>
                          <Badge>{scope}</Badge>
                        </li>
                      ))}
                    </ul>
                  </Td>
                  <Td>{formatDateTime(key.createdAt, language)}</Td>
                  <Td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt, language) : t("keys.never")}</Td>
                  <Td className="whitespace-nowrap">
                    {t("keys.perDay", { count: formatNumber(key.dailyLimit, language) })}
                  </Td>
                  <Td className="text-right">
                    <RevokeKey apiKey={key} />
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </TableContainer>
      )}
    </div>
  );
}

function CreateKeyDialog() {
  const t = useT();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<Kind>("user");
  const [error, setError] = useState<ErrorObject | null>(null);
  const [created, setCreated] = useState<{ name: string; rawKey: string } | null>(null);
  const create = useMutation(
    trpc.accounts.createKey.mutationOptions({
      onSuccess: async (result) => {
        setCreated({ name: result.key.name ?? result.key.prefix, rawKey: result.rawKey });
        await queryClient.invalidateQueries({ queryKey: trpc.accounts.listKeys.queryKey() });
      },
      onError: (failure) => setError(catalogueError(failure)),
    }),
  );

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      // The raw key is never kept once the dialog closes.
      setCreated(null);
      setError(null);
      setKind("user");
      create.reset();
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(null);
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    if (kind === "developer") {
      const budget = String(form.get("dailyLimit") ?? "").trim();
      create.mutate({ kind, name, dailyLimit: budget === "" ? undefined : Number(budget) });
    } else {
      create.mutate({ kind, name: name === "" ? null : name });
    }
  };

  const fieldError = (param: string) => (error?.param === param ? error.message : undefined);
  const formError = error && error.param !== "name" && error.param !== "dailyLimit" ? error : null;

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button>{t("keys.create")}</Button>
      </DialogTrigger>
      <DialogContent>
        {created ? (
          <div className="space-y-4" data-testid="created-key">
            <DialogTitle>{t("keys.created.title")}</DialogTitle>
            <DialogDescription className="text-sm text-muted">
              {t("keys.created.description")}
            </DialogDescription>
            <CodeBlock
              value={created.rawKey}
              label={t("keys.created.label", { name: created.name })}
              copyLabel={t("keys.created.copy")}
            />
            <div className="flex justify-end">
              <Button onClick={() => onOpenChange(false)}>{t("keys.created.done")}</Button>
            </div>
          </div>
        ) : (
          <form className="space-y-5" onSubmit={submit} noValidate>
            <DialogTitle>{t("keys.dialog.title")}</DialogTitle>
            <DialogDescription className="text-sm text-muted">
              {t("keys.dialog.description")}
            </DialogDescription>
            {formError ? (
              <Notice tone="danger" role="alert">
                {formError.message}
                {formError.code === "email_not_verified" ? ` ${t("account.email.unverified")}` : null}
              </Notice>
            ) : null}
            <fieldset className="space-y-2">
              <legend className="mb-2 text-sm font-medium text-fg">{t("keys.dialog.kind")}</legend>
              {(["user", "developer"] as const).map((option) => (
                <label
                  key={option}
                  className="flex cursor-pointer items-start gap-3 rounded-md border border-border-strong p-3 has-[:checked]:border-primary has-[:checked]:bg-primary-soft"
                >
                  <input
                    type="radio"
                    name="kind"
                    value={option}
                    checked={kind === option}
                    onChange={() => setKind(option)}
                    className="mt-1 size-4 accent-[var(--primary)]"
                  />
                  <span>
                    <span className="block text-sm font-medium text-fg">
                      {t(option === "user" ? "keys.dialog.userOption" : "keys.dialog.developerOption")}
                    </span>
                    <span className="block text-sm text-muted">
                      {t(option === "user" ? "keys.dialog.userHint" : "keys.dialog.developerHint")}
                    </span>
                  </span>
                </label>
              ))}
            </fieldset>
            <Field
              id="key-name"
              label={t("keys.dialog.name")}
              hint={t("keys.dialog.nameHint")}
              optionalLabel={kind === "user" ? t("common.optional") : undefined}
              error={fieldError("name")}
            >
              <Input name="name" maxLength={100} autoComplete="off" required={kind === "developer"} />
            </Field>
            {kind === "developer" ? (
              <Field
                id="key-budget"
                label={t("keys.dialog.budget")}
                hint={t("keys.dialog.budgetHint")}
                error={fieldError("dailyLimit")}
              >
                <Input
                  name="dailyLimit"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={10_000}
                  defaultValue={50}
                />
              </Field>
            ) : null}
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="secondary" onClick={() => onOpenChange(false)}>
                {t("common.cancel")}
              </Button>
              <Button type="submit" loading={create.isPending}>
                {t("keys.dialog.submit")}
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

function RevokeKey({ apiKey }: { apiKey: AccountKeyDto }) {
  const t = useT();
  const language = useLanguage();
  const router = useRouter();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const name = apiKey.name ?? apiKey.prefix;
  const isDeveloper = apiKey.kind === "developer";
  const preview = useQuery({
    ...trpc.accounts.previewKeyRevocation.queryOptions({ keyId: apiKey.id }),
    enabled: open && isDeveloper,
    staleTime: 0,
  });
  const revoke = useMutation(
    trpc.accounts.revokeKey.mutationOptions({
      onSuccess: async (result) => {
        toast({
          variant: "success",
          title: isDeveloper
            ? plural(t, language, "keys.revokedCascade", { name, count: result.cancelledAccounts })
            : t("keys.revoked", { name }),
        });
        await queryClient.invalidateQueries({ queryKey: trpc.accounts.listKeys.queryKey() });
        // A revoked developer key may take the Developers entry out of the navigation (the server-rendered shell).
        if (isDeveloper) router.refresh();
      },
      onError: (failure) =>
        toast({ variant: "danger", title: catalogueError(failure)?.message ?? failure.message }),
    }),
  );
  let description: string;
  if (!isDeveloper) description = t(apiKey.source === "oauth" ? "keys.revoke.oauth" : "keys.revoke.user");
  else if (preview.error) description = catalogueError(preview.error)?.message ?? t("keys.revoke.loading");
  else if (!preview.data) description = t("keys.revoke.loading");
  else
    description = t("keys.revoke.developer", {
      unverified: plural(t, language, "keys.revoke.unverified", { count: preview.data.unverifiedAccounts }),
      live: plural(t, language, "keys.revoke.live", { count: preview.data.liveAccounts }),
    });
  const isReady = !isDeveloper || Boolean(preview.data);
  return (
    <div className="flex flex-wrap justify-end gap-2">
      {apiKey.source === "oauth" ? (
        <Link href="/dashboard/account#connected-apps" className={buttonClasses("ghost", "sm")}>
          {t("keys.oauthManage")}
        </Link>
      ) : null}
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        trigger={
          <Button
            variant="danger"
            size="sm"
            aria-label={t("keys.revokeLabel", { name })}
            loading={revoke.isPending}
          >
            {t("keys.revoke")}
          </Button>
        }
        title={t("keys.revoke.title", { name })}
        description={<span data-testid="revoke-description">{description}</span>}
        cancelLabel={t("common.cancel")}
        actionLabel={t("keys.revoke.confirm")}
        actionAsChild={
          <Button variant="danger" disabled={!isReady} onClick={() => revoke.mutate({ keyId: apiKey.id })}>
            {t("keys.revoke.confirm")}
          </Button>
        }
      />
    </div>
  );
}
