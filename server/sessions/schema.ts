import { z } from "zod";

/** Interface languages; a new account takes the one the person signed up in. */
export const SignInLanguage = z.enum(["es", "en", "pt"]);
export type SignInLanguage = z.infer<typeof SignInLanguage>;

/** An address as typed: trimmed and lowercased before it is checked, so `Ana@X.com ` and `ana@x.com` are one. */
export const SignInEmail = z.string().trim().toLowerCase().pipe(z.email().max(254));

/** The 6 digits from the mail. Spaces a person may paste around or inside them are dropped. */
export const SignInCode = z
  .string()
  .transform((value) => value.replace(/\s+/g, ""))
  .pipe(z.string().regex(/^\d{6}$/));

/** The two answers to "a developer partner made an account for this address". */
export const BootstrapChoice = z.enum(["continue", "new"]);
export type BootstrapChoice = z.infer<typeof BootstrapChoice>;

/** The sign-in forms (server/sessions/forms.ts parses each with these; the service checks again). */
export const EmailStepForm = z.object({ email: z.string().max(1000), next: z.string().max(2000).optional() });
export const CodeStepForm = z.object({ code: z.string().max(100) });
export const ChoiceStepForm = z.object({ choice: BootstrapChoice });
export const TermsStepForm = z.object({
  version: z.string().min(1).max(50),
  next: z.string().max(2000).optional(),
});

/** What the dashboard needs about the signed-in account, read with its session in one statement (`resolveSignedInSession`). */
export type SignedInAccountDto = {
  id: string;
  email: string;
  status: "unverified" | "verified" | "cancelled";
  plan: "FREE_NEW" | "FREE_OLD" | "PRO";
  language: SignInLanguage;
  tosAcceptedVersion: string | null;
  hasDeveloperKeys: boolean;
};

/** The outcome of a proven code: signed in, or a choice to make first. */
export type SignInResult =
  | { kind: "signed_in"; session: NewSession; accountId: string; needsTerms: boolean }
  | { kind: "choose"; challengeToken: string; email: string };

export type NewSession = { token: string; expiresAt: Date };

export type ResolvedSession = { sessionId: string; accountId: string; expiresAt: Date };
