"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/app/_components/ui/button";
import { CodeBlock } from "@/app/_components/ui/code-block";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/app/_components/ui/dialog";
import { useToast } from "@/app/_components/ui/toast";
import { useT } from "@/app/_i18n/client";
import { catalogueError, useTRPC } from "@/app/_trpc/client";

/** Issues a user key for one bootstrapped account and shows it once; closing the dialog forgets it. */
export function IssueUserKey({ userId, email }: { userId: string; email: string }) {
  const t = useT();
  const trpc = useTRPC();
  const toast = useToast();
  const router = useRouter();
  const [rawKey, setRawKey] = useState<string | null>(null);
  const issue = useMutation(
    trpc.accounts.issueUserKey.mutationOptions({
      onSuccess: (result) => setRawKey(result.userKey),
      onError: (failure) =>
        toast({ variant: "danger", title: catalogueError(failure)?.message ?? failure.message }),
    }),
  );
  return (
    <>
      <Button
        variant="secondary"
        size="sm"
        aria-label={t("developers.issueLabel", { email })}
        loading={issue.isPending}
        onClick={() => issue.mutate({ userId })}
      >
        {t("developers.issue")}
      </Button>
      <Dialog
        open={rawKey !== null}
        onOpenChange={(open) => {
          if (!open) {
            setRawKey(null);
            router.refresh();
          }
        }}
      >
        <DialogContent data-testid="issued-key">
          <div className="space-y-4">
            <DialogTitle>{t("developers.issued.title", { email })}</DialogTitle>
            <DialogDescription className="text-sm text-muted">
              {t("developers.issued.description")}
            </DialogDescription>
            {rawKey ? (
              <CodeBlock
                value={rawKey}
                label={t("keys.created.label", { name: email })}
                copyLabel={t("keys.created.copy")}
              />
            ) : null}
            <div className="flex justify-end">
              <Button
                onClick={() => {
                  setRawKey(null);
                  router.refresh();
                }}
              >
                {t("keys.created.done")}
              </Button>
            </div>
          </div>
        </DialogContent>
      </Dialog>
    </>
  );
}
