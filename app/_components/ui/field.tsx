import { clsx } from "clsx";
import { Children, cloneElement, isValidElement, type ReactElement, type ReactNode } from "react";
import { AlertIcon } from "./icons";
import { Label } from "./label";

type ControlProps = {
  id?: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
  "aria-required"?: boolean;
};

/**
 * A label, one control, an optional hint and an optional error, wired together: the control gets the `id`,
 * `aria-describedby` (hint and error) and `aria-invalid` when there is an error. The error is what a catalogue
 * error whose `param` names this field shows (server/errors.ts), next to the field that caused it.
 */
export function Field({
  id,
  label,
  hint,
  error,
  optionalLabel,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  /** e.g. t("common.optional"), shown after the label. */
  optionalLabel?: string;
  className?: string;
  children: ReactElement<ControlProps>;
}) {
  const hintId = hint ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const control = Children.only(children);
  const describedBy =
    [control.props["aria-describedby"], hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={clsx("space-y-1.5", className)}>
      <Label htmlFor={id}>
        {label}
        {optionalLabel ? <span className="ml-1 font-normal text-muted">({optionalLabel})</span> : null}
      </Label>
      {isValidElement(control)
        ? cloneElement(control, {
            id,
            "aria-describedby": describedBy,
            "aria-invalid": error ? true : control.props["aria-invalid"],
          })
        : control}
      {hint ? (
        <p id={hintId ?? undefined} className="text-sm text-muted">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId ?? undefined} className="flex items-start gap-1.5 text-sm font-medium text-danger">
          <AlertIcon className="mt-0.5 shrink-0" />
          <span>{error}</span>
        </p>
      ) : null}
    </div>
  );
}
