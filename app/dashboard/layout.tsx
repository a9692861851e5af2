import type { ReactNode } from "react";
import { TrpcProvider } from "@/app/_trpc/client";
import { requireSignedInAccount } from "./_lib/session";

export const dynamic = "force-dynamic";

/**
 * Signed-out visitors go to /signin (and come back here after), accounts without the current terms to the terms
 * step. Pages render <Shell> themselves with their own `current` (a layout is not re-rendered when the person
 * moves between dashboard pages, so it cannot know the current page).
 */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  await requireSignedInAccount();
  return <TrpcProvider>{children}</TrpcProvider>;
}
