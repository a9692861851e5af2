"use client";

import { useState } from "react";
import { ConfirmDialog } from "@/app/_components/ui/alert-dialog";
import { Button } from "@/app/_components/ui/button";
import { Checkbox } from "@/app/_components/ui/checkbox";
import { CodeBlock } from "@/app/_components/ui/code-block";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
  DialogTrigger,
} from "@/app/_components/ui/dialog";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/app/_components/ui/dropdown-menu";
import { Field } from "@/app/_components/ui/field";
import { ChevronDownIcon } from "@/app/_components/ui/icons";
import { Input, Textarea } from "@/app/_components/ui/input";
import { Label } from "@/app/_components/ui/label";
import { Select } from "@/app/_components/ui/select";
import { Switch } from "@/app/_components/ui/switch";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/app/_components/ui/tabs";
import { useToast } from "@/app/_components/ui/toast";
import { useT } from "@/app/_i18n/client";

const EVENT_TYPES = [
  "user.verified",
  "user.cancelled",
  "order.created",
  "order.status_updated",
  "order.paid",
];

/** The interactive primitives of the gallery (client side). */
export function InteractiveGallery({ urlError }: { urlError: string }) {
  const t = useT();
  const toast = useToast();
  const [isEnabled, setEnabled] = useState(true);
  return (
    <div className="space-y-10">
      <section aria-labelledby="gallery-forms" className="space-y-4">
        <h2 id="gallery-forms" className="text-lg font-semibold">
          {t("gallery.forms")}
        </h2>
        <div className="grid gap-5 sm:grid-cols-2">
          <Field id="gallery-name" label={t("gallery.nameLabel")} hint={t("gallery.nameHint")}>
            <Input name="name" defaultValue="Café Aurora" />
          </Field>
          <Field id="gallery-url" label={t("gallery.urlLabel")} error={urlError}>
            <Input name="url" type="url" defaultValue="http://10.0.0.5/hook" />
          </Field>
          <Field id="gallery-event" label={t("gallery.eventLabel")}>
            <Select
              name="event"
              placeholder={t("common.choose")}
              options={EVENT_TYPES.map((value) => ({ value, label: value }))}
            />
          </Field>
          <Field
            id="gallery-description"
            label={t("gallery.descriptionLabel")}
            optionalLabel={t("common.optional")}
          >
            <Textarea name="description" rows={3} />
          </Field>
        </div>
        <div className="flex flex-wrap gap-6">
          <div className="flex items-center gap-2">
            <Checkbox id="gallery-test-events" name="testEvents" defaultChecked />
            <Label htmlFor="gallery-test-events">{t("gallery.checkboxLabel")}</Label>
          </div>
          <div className="flex items-center gap-2">
            <Switch id="gallery-enabled" checked={isEnabled} onCheckedChange={setEnabled} />
            <Label htmlFor="gallery-enabled">{t("gallery.switchLabel")}</Label>
          </div>
        </div>
      </section>

      <section aria-labelledby="gallery-overlays" className="space-y-4">
        <h2 id="gallery-overlays" className="text-lg font-semibold">
          {t("gallery.overlays")}
        </h2>
        <div className="flex flex-wrap gap-2">
          <Dialog>
            <DialogTrigger asChild>
              <Button variant="secondary">{t("gallery.openDialog")}</Button>
            </DialogTrigger>
            <DialogContent>
              <DialogTitle>{t("gallery.dialogTitle")}</DialogTitle>
              <DialogDescription>{t("gallery.dialogDescription")}</DialogDescription>
              <div className="mt-4">
                <Field id="gallery-dialog-url" label={t("gallery.urlLabel")}>
                  <Input defaultValue="https://example.com/hooks/marea" />
                </Field>
              </div>
              <DialogFooter>
                <DialogClose asChild>
                  <Button variant="secondary">{t("common.cancel")}</Button>
                </DialogClose>
                <DialogClose asChild>
                  <Button onClick={() => toast({ title: t("common.saved"), variant: "success" })}>
                    {t("common.save")}
                  </Button>
                </DialogClose>
              </DialogFooter>
            </DialogContent>
          </Dialog>
          <ConfirmDialog
            trigger={<Button variant="danger">{t("gallery.deleteEndpoint")}</Button>}
            title={t("gallery.confirmTitle")}
            description={t("gallery.confirmDescription")}
            cancelLabel={t("common.cancel")}
            actionLabel={t("common.delete")}
            onAction={() => toast({ title: t("gallery.deleted") })}
          />
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button variant="secondary">
                {t("gallery.actions")}
                <ChevronDownIcon />
              </Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent>
              <DropdownMenuItem>{t("gallery.rotateSecret")}</DropdownMenuItem>
              <DropdownMenuItem>{t("gallery.pause")}</DropdownMenuItem>
              <DropdownMenuSeparator />
              <DropdownMenuItem destructive>{t("common.delete")}</DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
          <Button variant="ghost" onClick={() => toast({ title: t("common.saved"), variant: "success" })}>
            {t("gallery.showToast")}
          </Button>
        </div>
      </section>

      <section aria-labelledby="gallery-tabs" className="space-y-4">
        <h2 id="gallery-tabs" className="text-lg font-semibold">
          {t("gallery.tabs")}
        </h2>
        <Tabs defaultValue="deliveries">
          <TabsList aria-label={t("gallery.tabsLabel")}>
            <TabsTrigger value="settings">{t("gallery.tabSettings")}</TabsTrigger>
            <TabsTrigger value="deliveries">{t("gallery.tabDeliveries")}</TabsTrigger>
            <TabsTrigger value="secret">{t("gallery.tabSecret")}</TabsTrigger>
          </TabsList>
          <TabsContent value="settings">
            <p className="text-sm text-muted">{t("gallery.tabSettingsBody")}</p>
          </TabsContent>
          <TabsContent value="deliveries">
            <p className="text-sm text-muted">{t("gallery.tabDeliveriesBody")}</p>
          </TabsContent>
          <TabsContent value="secret">
            <CodeBlock
              value="3f9a7c2e5b1d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a"
              label={t("gallery.secretLabel")}
              copyLabel={t("gallery.copySecret")}
            />
          </TabsContent>
        </Tabs>
      </section>
    </div>
  );
}
