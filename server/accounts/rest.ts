import { z } from "zod";
import { defineRoute } from "@/server/http/route";
import { acceptCurrentTerms, cancelOwnAccount } from "./cancellation";
import { bootstrapUser, issueUserKey } from "./partners";
import {
  AcceptTermsInput,
  BootstrapUserInput,
  BootstrapUserResponse,
  IssueUserKeyInput,
  IssueUserKeyResponse,
  MeDto,
  UserIdParams,
  VerifyEmailInput,
} from "./schema";
import { getMe } from "./service";
import { resendVerification, verifyEmail } from "./verification";

export const accountRoutes = [
  defineRoute({
    operationId: "bootstrapUser",
    method: "POST",
    path: "/v1/users",
    summary:
      "Bootstrap an account with a developer key; returns its first user key and emails a verification code.",
    tags: ["accounts"],
    auth: "key",
    body: BootstrapUserInput,
    responses: { 201: { description: "Account created", schema: BootstrapUserResponse } },
    errors: ["email_taken", "bootstrap_rate_limited"],
    handler: async (ctx, { body }) => ({ status: 201, body: await bootstrapUser(ctx, body) }),
  }),
  defineRoute({
    operationId: "issueUserKey",
    method: "POST",
    path: "/v1/users/{userId}/keys",
    summary: "Issue another user key for an account this developer bootstrapped.",
    tags: ["accounts"],
    auth: "key",
    params: UserIdParams,
    body: IssueUserKeyInput,
    responses: { 201: { description: "Key issued", schema: IssueUserKeyResponse } },
    errors: ["partner_access_off", "api_key_limit_reached"],
    handler: async (ctx, { params, body }) => ({
      status: 201,
      body: await issueUserKey(ctx, { ...params, ...body }),
    }),
  }),
  defineRoute({
    operationId: "getMe",
    method: "GET",
    path: "/v1/me",
    summary: "The calling key's identity, account, plan limits and rate-limit budget.",
    tags: ["accounts"],
    auth: "key",
    query: z.strictObject({}),
    responses: { 200: { description: "Identity", schema: MeDto } },
    handler: async (ctx) => ({ status: 200, body: await getMe(ctx) }),
  }),
  defineRoute({
    operationId: "verifyEmail",
    method: "POST",
    path: "/v1/me/verify",
    summary:
      "Verify the account's email with the mailed code; adds storefront:publish to its keys and fires user.verified.",
    tags: ["accounts"],
    auth: "key",
    body: VerifyEmailInput,
    responses: { 200: { description: "Verified; the identity as GET /v1/me", schema: MeDto } },
    errors: ["invalid_verification_code", "verification_rate_limited", "verification_locked"],
    handler: async (ctx, { body }) => ({ status: 200, body: await verifyEmail(ctx, body) }),
  }),
  defineRoute({
    operationId: "resendVerification",
    method: "POST",
    path: "/v1/me/resend-verification",
    summary:
      "Mail a new verification code (the previous one stops working); at most one a minute and 5 a day, 10 in all.",
    tags: ["accounts"],
    auth: "key",
    body: z.strictObject({}),
    responses: {
      202: {
        description: "Accepted",
        schema: z.object({ status: z.enum(["sent", "already_verified", "throttled"]) }),
      },
    },
    errors: ["verification_locked"],
    handler: async (ctx) => ({ status: 202, body: await resendVerification(ctx) }),
  }),
  defineRoute({
    operationId: "cancelAccount",
    method: "DELETE",
    path: "/v1/me",
    summary:
      "Cancel the calling user key's account (user.cancelled, reason user_clicked_cancel). Its keys stop working.",
    tags: ["accounts"],
    auth: "key",
    responses: {
      200: { description: "Cancelled", schema: z.object({ id: z.string(), deleted: z.literal(true) }) },
    },
    handler: async (ctx) => ({ status: 200, body: await cancelOwnAccount(ctx) }),
  }),
  defineRoute({
    operationId: "acceptTerms",
    method: "POST",
    path: "/v1/me/accept-terms",
    summary: "Accept the current terms of service (lifts tos_not_accepted).",
    tags: ["accounts"],
    auth: "key",
    body: AcceptTermsInput,
    responses: { 200: { description: "Accepted", schema: z.object({ tosAcceptedVersion: z.string() }) } },
    handler: async (ctx, { body }) => ({ status: 200, body: await acceptCurrentTerms(ctx, body) }),
  }),
];
