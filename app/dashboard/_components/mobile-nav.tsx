"use client";

import { type ReactNode, useState } from "react";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogTitle,
  DialogTrigger,
} from "@/app/_components/ui/dialog";
import { MenuIcon } from "@/app/_components/ui/icons";
import { useT } from "@/app/_i18n/client";
import { type NavItem, NavLinks } from "./nav-links";

/**
 * Small screens: a menu button opening the navigation as a sheet from the left (Radix Dialog: focus moves in
 * and is kept there, Escape closes it, focus returns to the button). `footer` holds the account controls.
 */
export function MobileNav({
  items,
  email,
  navLabel,
  footer,
}: {
  items: NavItem[];
  email: string;
  navLabel: string;
  footer: ReactNode;
}) {
  const t = useT();
  const [isOpen, setOpen] = useState(false);
  return (
    <Dialog open={isOpen} onOpenChange={setOpen}>
      <DialogTrigger
        className="inline-flex size-10 items-center justify-center rounded-md text-fg hover:bg-surface-muted md:hidden"
        aria-label={t("common.openMenu")}
        data-testid="mobile-menu-button"
      >
        <MenuIcon className="size-5" />
      </DialogTrigger>
      <DialogContent side="left" data-testid="mobile-menu">
        <DialogTitle>{t("common.menu")}</DialogTitle>
        <DialogDescription className="truncate" title={email}>
          {email}
        </DialogDescription>
        <nav aria-label={navLabel} className="mt-4">
          <NavLinks items={items} onNavigate={() => setOpen(false)} />
        </nav>
        <div className="mt-6 space-y-5 border-t border-border pt-5">{footer}</div>
      </DialogContent>
    </Dialog>
  );
}
