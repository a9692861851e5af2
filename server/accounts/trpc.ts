import { z } from "zod";
import { input, router, sessionProcedure } from "@/server/trpc/init";
import {
  createAccountKey,
  listAccountKeys,
  previewAccountKeyRevocation,
  revokeAccountKey,
} from "./account-keys";
import { getAccount, setAccountLanguage, setPartnerAccess } from "./account-page";
import { acceptCurrentTerms, cancelOwnAccount } from "./cancellation";
import { issueUserKey, listPartnerUsers } from "./partners";
import {
  AcceptTermsInput,
  AccountKeyIdInput,
  CreateAccountKeyInput,
  IssueUserKeyInput,
  ListPartnerUsersQuery,
  SetAccountLanguageInput,
  SetPartnerAccessInput,
  UserIdParams,
} from "./schema";

const IssueUserKeyArgs = UserIdParams.extend(IssueUserKeyInput.shape);
const NoInput = z.strictObject({});

/**
 * The dashboard's account procedures (docs/ui.md, "API keys", "Account", "Developers"): one line each over
 * account-keys.ts, account-page.ts, partners.ts and cancellation.ts.
 */
export const accountsRouter = router({
  listKeys: sessionProcedure.query(({ ctx }) => listAccountKeys(ctx.service)),
  createKey: sessionProcedure
    .input(input(CreateAccountKeyInput))
    .mutation(({ ctx, input }) => createAccountKey(ctx.service, input)),
  previewKeyRevocation: sessionProcedure
    .input(input(AccountKeyIdInput))
    .query(({ ctx, input }) => previewAccountKeyRevocation(ctx.service, input)),
  revokeKey: sessionProcedure
    .input(input(AccountKeyIdInput))
    .mutation(({ ctx, input }) => revokeAccountKey(ctx.service, input)),
  get: sessionProcedure.query(({ ctx }) => getAccount(ctx.service)),
  setLanguage: sessionProcedure
    .input(input(SetAccountLanguageInput))
    .mutation(({ ctx, input }) => setAccountLanguage(ctx.service, input)),
  setPartnerAccess: sessionProcedure
    .input(input(SetPartnerAccessInput))
    .mutation(({ ctx, input }) => setPartnerAccess(ctx.service, input)),
  acceptTerms: sessionProcedure
    .input(input(AcceptTermsInput))
    .mutation(({ ctx, input }) => acceptCurrentTerms(ctx.service, input)),
  cancel: sessionProcedure.input(input(NoInput)).mutation(({ ctx }) => cancelOwnAccount(ctx.service)),
  listPartnerUsers: sessionProcedure
    .input(input(ListPartnerUsersQuery))
    .query(({ ctx, input }) => listPartnerUsers(ctx.service, input)),
  issueUserKey: sessionProcedure
    .input(input(IssueUserKeyArgs))
    .mutation(({ ctx, input }) => issueUserKey(ctx.service, input)),
});
