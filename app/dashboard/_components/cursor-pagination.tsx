import Link from "next/link";
import { buttonClasses } from "@/app/_components/ui/button";

/**
 * "First page" and "Next page" for a list paged by cursor (docs/api.md, "Lists"), the view kept in the URL.
 * Nothing when the list has one page.
 */
export function CursorPagination({
  label,
  firstLabel,
  nextLabel,
  firstHref,
  nextHref,
}: {
  label: string;
  firstLabel: string;
  nextLabel: string;
  /** The first page's URL, or null when this is the first page. */
  firstHref: string | null;
  /** The next page's URL, or null when this is the last page. */
  nextHref: string | null;
}) {
  if (!firstHref && !nextHref) return null;
  return (
    <nav aria-label={label} className="mt-4 flex flex-wrap gap-2">
      {firstHref ? (
        <Link href={firstHref} className={buttonClasses("secondary", "sm")}>
          {firstLabel}
        </Link>
      ) : null}
      {nextHref ? (
        <Link href={nextHref} className={buttonClasses("secondary", "sm")} rel="next">
          {nextLabel}
        </Link>
      ) : null}
    </nav>
  );
}
