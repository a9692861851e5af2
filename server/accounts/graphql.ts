import { builder } from "@/server/graphql/builder";
import { connectionType, listQueryOf, toConnection } from "@/server/graphql/connections";
import type { GraphQLContext } from "@/server/graphql/context";
import { parseArg, parseId } from "@/server/graphql/input";
import { NodeRef, registerNodeType } from "@/server/graphql/node";
import { bootstrapUser, issueUserKey, listBootstrappedUsers, loadBootstrappedUsers } from "./partners";
import { BootstrapUserInput, IssueUserKeyInput, type KeyDto, type MeDto, type UserDto } from "./schema";
import { getMe } from "./service";

/** Accounts and keys over GraphQL (docs/graphql.md): `me`, a developer's bootstrapped users, bootstrap, keys. */

const LanguageRef = builder.enumType("Language", { values: ["es", "en", "pt"] as const });
const AccountStatusRef = builder.enumType("AccountStatus", {
  values: ["unverified", "verified", "cancelled"] as const,
});
const PlanRef = builder.enumType("Plan", { values: ["FREE_NEW", "FREE_OLD", "PRO"] as const });

/** One bootstrapped user by id (node), through the request's loader. */
function bootstrappedUserLoader(ctx: GraphQLContext) {
  return ctx.loader<UserDto>("bootstrappedUsers", (ids) =>
    loadBootstrappedUsers(ctx.service, { userIds: ids }),
  );
}

export const UserRef = builder.objectRef<UserDto>("User").implement({
  description: "An account a developer's key bootstrapped (/v1's User object).",
  interfaces: [NodeRef],
  fields: (t) => ({
    email: t.exposeString("email"),
    name: t.exposeString("name", { nullable: true }),
    language: t.field({ type: LanguageRef, resolve: (user) => user.language }),
    status: t.field({ type: AccountStatusRef, resolve: (user) => user.status }),
    plan: t.field({ type: PlanRef, resolve: (user) => user.plan }),
    developerKeyId: t.exposeString("developerKeyId", { nullable: true }),
    createdAt: t.exposeString("createdAt"),
    verifiedAt: t.exposeString("verifiedAt", { nullable: true }),
  }),
});
registerNodeType({
  prefix: "usr_",
  typeName: "User",
  load: (ctx, id) => bootstrappedUserLoader(ctx).load(id),
});

const UserConnectionRef = connectionType("User", UserRef);

const ApiKeyRef = builder.objectRef<KeyDto>("ApiKey").implement({
  description:
    "A key's metadata (never the key itself). Not a Node: keys are not read back by id over the API.",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { nullable: true }),
    prefix: t.exposeString("prefix"),
    scopes: t.exposeStringList("scopes"),
    createdAt: t.exposeString("createdAt"),
  }),
});

const PlanLimitsRef = builder.objectRef<MeDto["account"]["limits"]>("PlanLimits").implement({
  fields: (t) => ({
    storefronts: t.exposeInt("storefronts"),
    products: t.exposeInt("products"),
    publishable: t.exposeBoolean("publishable"),
  }),
});

const MeAccountRef = builder.objectRef<MeDto["account"]>("MeAccount").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email"),
    status: t.field({ type: AccountStatusRef, resolve: (account) => account.status }),
    plan: t.field({ type: PlanRef, resolve: (account) => account.plan }),
    limits: t.field({ type: PlanLimitsRef, resolve: (account) => account.limits }),
  }),
});

const RateLimitRef = builder.objectRef<MeDto["rateLimit"]>("RateLimit").implement({
  fields: (t) => ({
    rpm: t.exposeInt("rpm"),
    rpd: t.exposeInt("rpd"),
    remainingMinute: t.exposeInt("remainingMinute", { description: "Approximate." }),
    remainingDay: t.exposeInt("remainingDay"),
  }),
});

const MeLinksRef = builder.objectRef<MeDto["_links"]>("MeLinks").implement({
  fields: (t) => ({
    upgradeUrl: t.string({
      nullable: true,
      description: "Present while the account cannot publish.",
      resolve: (links) => links.upgradeUrl ?? null,
    }),
  }),
});

const MeRef = builder.objectRef<MeDto>("Me").implement({
  description: "The calling key: /v1's `GET /v1/me` (`links` is `_links`).",
  fields: (t) => ({
    type: t.exposeString("type", { description: "`developer` or `user`." }),
    keyId: t.exposeString("keyId"),
    keyName: t.exposeString("keyName", { nullable: true }),
    scopes: t.exposeStringList("scopes"),
    account: t.field({ type: MeAccountRef, resolve: (me) => me.account }),
    rateLimit: t.field({ type: RateLimitRef, resolve: (me) => me.rateLimit }),
    links: t.field({ type: MeLinksRef, resolve: (me) => me._links }),
    bootstrappedUsers: t.field({
      type: UserConnectionRef,
      nullable: true,
      description: "The accounts this developer's keys bootstrapped, by id (`developer:read`).",
      args: { first: t.arg.int(), after: t.arg.string() },
      resolve: async (_, args, ctx) =>
        toConnection(await listBootstrappedUsers(ctx.service, listQueryOf(args, ctx)), (user) => user.id),
    }),
  }),
});

builder.queryField("me", (t) =>
  t.field({
    type: MeRef,
    nullable: true,
    description:
      "The calling key, its account and its rate-limit budget (API keys only: a session has no key).",
    resolve: (_, __, ctx) => getMe(ctx.service),
  }),
);

const BootstrapUserInputRef = builder.inputType("BootstrapUserInput", {
  description: "/v1's `POST /v1/users` body.",
  fields: (t) => ({
    email: t.string(),
    name: t.string(),
    language: t.field({ type: LanguageRef, description: "Default `es`." }),
  }),
});

const IssueUserKeyInputRef = builder.inputType("IssueUserKeyInput", {
  fields: (t) => ({ name: t.string() }),
});

const BootstrapUserPayloadRef = builder
  .objectRef<{ user: UserDto; userKey: string }>("BootstrapUserPayload")
  .implement({
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: (payload) => payload.user }),
      userKey: t.exposeString("userKey", { description: "The raw `mk_user_*` key. Shown once." }),
    }),
  });

const IssueUserKeyPayloadRef = builder
  .objectRef<{ key: KeyDto; userKey: string }>("IssueUserKeyPayload")
  .implement({
    fields: (t) => ({
      key: t.field({ type: ApiKeyRef, resolve: (payload) => payload.key }),
      userKey: t.exposeString("userKey", { description: "The raw `mk_user_*` key. Shown once." }),
    }),
  });

builder.mutationField("bootstrapUser", (t) =>
  t.field({
    type: BootstrapUserPayloadRef,
    nullable: true,
    description: "Bootstrap an account (developer keys only, never a session or OAuth): its first user key.",
    args: { input: t.arg({ type: BootstrapUserInputRef, required: true }) },
    resolve: (_, args, ctx) => bootstrapUser(ctx.service, parseArg(BootstrapUserInput, args.input, ctx)),
  }),
);

builder.mutationField("issueUserKey", (t) =>
  t.field({
    type: IssueUserKeyPayloadRef,
    nullable: true,
    description: "Another user key for an account this developer bootstrapped.",
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: IssueUserKeyInputRef }) },
    resolve: (_, args, ctx) =>
      issueUserKey(ctx.service, {
        userId: parseId(args.userId, ctx, "userId"),
        ...parseArg(IssueUserKeyInput, args.input ?? {}, ctx),
      }),
  }),
);
