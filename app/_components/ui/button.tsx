import { clsx } from "clsx";
import { Slot } from "radix-ui";
import type { ComponentProps } from "react";
import { SpinnerIcon } from "./icons";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger" | "link";
export type ButtonSize = "sm" | "md" | "lg";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-primary text-on-primary hover:bg-primary-hover",
  secondary: "border border-border-strong bg-surface text-fg hover:bg-surface-muted",
  ghost: "bg-transparent text-fg hover:bg-surface-muted",
  danger: "bg-danger text-on-danger hover:bg-danger-hover",
  link: "bg-transparent px-0! text-primary underline underline-offset-2 hover:text-primary-hover",
};

const SIZES: Record<ButtonSize, string> = {
  sm: "h-8 gap-1.5 px-3 text-sm",
  md: "h-10 gap-2 px-4 text-sm",
  lg: "h-11 gap-2 px-5 text-base",
};

/** The classes of a button, for links that look like one (`<a className={buttonClasses("secondary")}>`). */
export function buttonClasses(
  variant: ButtonVariant = "primary",
  size: ButtonSize = "md",
  className?: string,
) {
  return clsx(
    "inline-flex shrink-0 items-center justify-center rounded-md font-medium whitespace-nowrap no-underline transition-colors",
    "disabled:cursor-not-allowed disabled:opacity-60 aria-busy:cursor-progress",
    VARIANTS[variant],
    SIZES[size],
    className,
  );
}

export type ButtonProps = ComponentProps<"button"> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Shows a spinner, marks the button busy and blocks clicks; the label stays, so its name does not change. */
  loading?: boolean;
  /** Renders the one child (e.g. a Next <Link>) with the button's look instead of a <button>. */
  asChild?: boolean;
};

export function Button({
  variant = "primary",
  size = "md",
  loading = false,
  asChild = false,
  className,
  disabled,
  type,
  children,
  ...props
}: ButtonProps) {
  const classes = buttonClasses(variant, size, className);
  if (asChild) {
    return (
      <Slot.Root className={classes} {...props}>
        {children}
      </Slot.Root>
    );
  }
  return (
    <button
      type={type ?? "button"}
      className={classes}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...props}
    >
      {loading ? <SpinnerIcon /> : null}
      {children}
    </button>
  );
}
