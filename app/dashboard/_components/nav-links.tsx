"use client";

import { clsx } from "clsx";
import Link from "next/link";

export type NavItem = { href: string; label: string; isCurrent: boolean };

/** The dashboard's navigation list; the current page carries aria-current="page". */
export function NavLinks({ items, onNavigate }: { items: NavItem[]; onNavigate?: () => void }) {
  return (
    <ul className="space-y-0.5">
      {items.map((item) => (
        <li key={item.href}>
          <Link
            href={item.href}
            aria-current={item.isCurrent ? "page" : undefined}
            onClick={onNavigate}
            className={clsx(
              "flex items-center rounded-md px-3 py-2 text-sm font-medium no-underline",
              item.isCurrent
                ? "bg-primary-soft text-fg shadow-[inset_3px_0_0_var(--primary)] hover:text-fg"
                : "text-fg hover:bg-surface-muted hover:text-fg",
            )}
          >
            {item.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}
