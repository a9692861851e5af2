import { clsx } from "clsx";
import { CopyButton } from "./copy-button";

/**
 * Monospace text that wraps (long keys and URLs never push the page sideways), with a copy button. `label`
 * names the block for assistive technology ("Your API key"); `copyLabel` names the button.
 */
export function CodeBlock({
  value,
  label,
  copyLabel,
  className,
}: {
  value: string;
  label: string;
  copyLabel?: string;
  className?: string;
}) {
  return (
    <figure className={clsx("rounded-md border border-border bg-surface-muted", className)}>
      <figcaption className="sr-only">{label}</figcaption>
      <div className="flex items-start gap-2 p-3">
        <pre className="min-w-0 flex-1 font-mono text-sm break-all whitespace-pre-wrap text-fg">
          <code>{value}</code>
        </pre>
        <CopyButton value={value} label={copyLabel} />
      </div>
    </figure>
  );
}
