/**
 * Keeps the shape of `server/` (docs/architecture.md, "Layers"): `npx tsx .ci/check-architecture.ts`, run by
 * `npm test` right after the linter.
 *
 * It reads every TypeScript source of `server/` and builds its import graph: static imports and re-exports,
 * `import type`, dynamic `import()` and `import("…").T` types. Tests are not sources here: `*.test.ts`, the
 * helpers in `server/testing/` and the features' factories (`server/<feature>/testing.ts`, which only tests
 * import) are skipped, so a test may import anything.
 *
 * Each top-level folder or top-level file of `server/` is one unit, and each unit sits in one layer (LAYERS
 * below): the core, the gate (the identity and policy kernel), the door kits, the features, the top. It fails, listing each offending import with its
 * file:line, on
 *   1. an import from a core unit into any unit that is not core, or from the gate into anything above the core;
 *   2. a cycle between units that remains once the imports in ALLOWED_CYCLE_IMPORTS are set aside;
 *   3. a unit that no layer names (a new folder must be placed in a layer first).
 * `--report` prints the figures instead (units, upward imports, the cycles, the largest product files) and
 * always exits 0.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = path.join(ROOT, "server");

type Layer = "core" | "gate" | "kit" | "feature" | "top";
const RANK: Record<Layer, number> = { core: 0, gate: 1, kit: 2, feature: 3, top: 4 };

/**
 * Which layer each unit belongs to. A unit may import its own layer and the layers below; only the core is held
 * to it strictly (rule 1), the other upward imports are counted by `--report` and must not close a cycle.
 */
const LAYERS: Record<Layer, readonly string[]> = {
  // Imports nothing above itself. `fields` is the field rules every feature's schemas share (safe text, http URLs,
  // amounts); `operations` is the OperationDefinition type and its helpers; `kit` is the
  // plumbing every door shares (body reader, error mapping, language, envelope); `limits` is the per-account
  // rate-limit counter the features call; `observability` is the metrics registry and the tracer, which db/
  // reports to.
  core: [
    "env",
    "errors",
    "validation",
    "fields",
    "lib",
    "db",
    "context",
    "operations",
    "error-reference",
    "kit",
    "limits",
    "observability",
  ],
  // The identity and policy kernel: who is calling (API keys, actors, the identity tables), what they may do
  // (authorize, scopes, terms), how often (the keys' rate limits) and the stored answers of Idempotency-Keys. It is
  // held like the core: it imports only the core.
  gate: ["gate"],
  // The door kits: what a feature's rest.ts, graphql.ts, mcp.ts and trpc.ts build on.
  kit: ["http", "graphql", "mcp", "trpc"],
  feature: [
    "accounts",
    "storefronts",
    "products",
    "orders",
    "webhooks",
    "sessions",
    "oauth",
    "mail",
    "overview",
    "health",
    "events",
    "files",
    "listen",
    "jobs",
  ],
  // What assembles and starts the app: the lists of every feature, the process start, the CLI.
  top: ["wiring", "host", "cli"],
};

/**
 * Imports that close a cycle between units and are accepted, each for a stated reason. Every other cycle fails.
 * `from` is the importing file, `to` the imported file (both relative to the repository).
 */
const IDENTITY =
  "a session cookie is resolved by the sessions feature and an MCP access token by the oauth feature (their " +
  "tables and services); the door kits that accept them call those features back";
const STOREFRONT_PRODUCTS =
  "a storefront is created with its products (the create body embeds product manifests, the service plans " +
  "them) and its GraphQL type lists them";

const STOREFRONT_PUBLIC_PAGE =
  "the public page reads a published storefront with its visible products in one service call";
const STOREFRONT_DASHBOARD = "the dashboard's storefront list shows each storefront's product count";

const ALLOWED_CYCLE_IMPORTS: readonly { from: string; to: string; reason: string }[] = [
  {
    from: "server/env.ts",
    to: "server/lib/ip.ts",
    reason:
      "env checks TRUSTED_PROXIES with lib/ip.ts's parser, which imports nothing: a cycle of folders, not files",
  },
  { from: "server/graphql/session.ts", to: "server/sessions/actor.ts", reason: IDENTITY },
  { from: "server/trpc/context.ts", to: "server/sessions/actor.ts", reason: IDENTITY },
  { from: "server/mcp/auth.ts", to: "server/oauth/grants.ts", reason: IDENTITY },
  { from: "server/mcp/auth.ts", to: "server/oauth/urls.ts", reason: IDENTITY },
  { from: "server/mcp/http.ts", to: "server/oauth/urls.ts", reason: IDENTITY },
  {
    from: "server/mail/dev-mail.ts",
    to: "server/sessions/client-ip.ts",
    reason:
      "/dev/mail, mail's own page, answers loopback callers only, by the client address the sign-in door reads",
  },
  {
    from: "server/webhooks/events.ts",
    to: "server/listen/schema.ts",
    reason: "emitEvent also queues each event for the open `marea listen` sessions, in the same transaction",
  },
  {
    from: "server/webhooks/events.ts",
    to: "server/listen/tables.ts",
    reason: "emitEvent also queues each event for the open `marea listen` sessions, in the same transaction",
  },
  {
    from: "server/webhooks/event-schemas.ts",
    to: "server/orders/schema.ts",
    reason: "the order.* event payloads are the order DTO, one schema for /v1 and the events",
  },
  { from: "server/storefronts/graphql.ts", to: "server/products/graphql.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/graphql.ts", to: "server/products/schema.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/schema.ts", to: "server/products/schema.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/service.ts", to: "server/products/schema.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/service.ts", to: "server/products/service.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/service.ts", to: "server/products/tables.ts", reason: STOREFRONT_PRODUCTS },
  { from: "server/storefronts/publish.ts", to: "server/products/dto.ts", reason: STOREFRONT_PUBLIC_PAGE },
  { from: "server/storefronts/publish.ts", to: "server/products/schema.ts", reason: STOREFRONT_PUBLIC_PAGE },
  { from: "server/storefronts/publish.ts", to: "server/products/tables.ts", reason: STOREFRONT_PUBLIC_PAGE },
  { from: "server/storefronts/dashboard.ts", to: "server/products/tables.ts", reason: STOREFRONT_DASHBOARD },
];

type Import = { from: string; to: string; line: number; typeOnly: boolean };

function isSource(file: string): boolean {
  const rel = path.relative(SERVER, file);
  if (!/\.tsx?$/.test(rel) || rel.endsWith(".d.ts")) return false;
  if (rel.endsWith(".test.ts") || rel.endsWith(".test.tsx")) return false;
  if (rel.startsWith(`testing${path.sep}`)) return false;
  if (path.basename(rel) === "testing.ts") return false;
  return true;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else if (isSource(full)) out.push(full);
  }
  return out;
}

function resolve(spec: string, fromFile: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(ROOT, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(fromFile), spec);
  else return null;
  const stripped = base.replace(/\.js$/, "");
  for (const candidate of [
    base,
    `${stripped}.ts`,
    `${stripped}.tsx`,
    path.join(base, "index.ts"),
    `${stripped}.d.ts`,
  ]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return null;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(specifier)) return;
    const target = resolve(specifier.text, file);
    if (!target?.startsWith(`${SERVER}${path.sep}`)) return;
    const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
    found.push({ from: rel(file), to: rel(target), line, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first) add(first, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function rel(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join("/");
}

/** `server/http/pipeline.ts` -> `http`; `server/env.ts` -> `env`. */
function unitOf(file: string): string {
  const inside = file.slice("server/".length);
  const slash = inside.indexOf("/");
  return slash === -1 ? inside.replace(/\.tsx?$/, "") : inside.slice(0, slash);
}

const layerOf = new Map<string, Layer>();
for (const [layer, units] of Object.entries(LAYERS) as [Layer, readonly string[]][]) {
  for (const unit of units) layerOf.set(unit, layer);
}

/** Tarjan's strongly connected components of a graph given as adjacency sets. */
function components(nodes: readonly string[], edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    order.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, order.get(w)!));
      }
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component.sort());
    }
  };
  for (const v of nodes) if (!order.has(v)) connect(v);
  return out;
}

function unitGraph(imports: readonly Import[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    const a = unitOf(i.from);
    const b = unitOf(i.to);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
  }
  return edges;
}

const show = (i: Import) => `${i.from}:${i.line} -> ${i.to}${i.typeOnly ? " (type)" : ""}`;

const files = walk(SERVER);
const imports = files.flatMap(importsOf);
const units = [...new Set(files.map((f) => unitOf(rel(f))))].sort();
const isUpward = (i: Import) => {
  const a = layerOf.get(unitOf(i.from));
  const b = layerOf.get(unitOf(i.to));
  return a !== undefined && b !== undefined && RANK[b] > RANK[a];
};
const upward = imports.filter(isUpward);
const fromCore = upward.filter((i) => layerOf.get(unitOf(i.from)) === "core");
const fromGate = upward.filter((i) => layerOf.get(unitOf(i.from)) === "gate");

if (process.argv.includes("--report")) {
  const pairs = new Set(upward.map((i) => `${unitOf(i.from)} -> ${unitOf(i.to)}`));
  const corePairs = new Set(fromCore.map((i) => `${unitOf(i.from)} -> ${unitOf(i.to)}`));
  const cycles = components(units, unitGraph(imports)).filter((c) => c.length > 1);
  const sizes = files
    .map((f) => ({ file: rel(f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const lines = [
    `units: ${units.length} (${files.length} product files, ${imports.length} imports inside server/)`,
    `upward imports: ${upward.length} (${pairs.size} unit pairs)`,
    `upward imports from the core: ${fromCore.length} (${corePairs.size} unit pairs)`,
    ...fromCore.map((i) => `  ${show(i)}`),
    `upward imports from the gate: ${fromGate.length}`,
    ...fromGate.map((i) => `  ${show(i)}`),
    `unit cycles (strongly connected components of size > 1, no allowlist): ${cycles.length}`,
    ...cycles.map((c) => `  ${c.length}: ${c.join(" ")}`),
    "largest product files:",
    ...sizes.slice(0, 10).map((s) => `  ${String(s.lines).padStart(5)} ${s.file}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  process.exit(0);
}

const problems: string[] = [];

const unplaced = units.filter((u) => !layerOf.has(u));
for (const unit of unplaced) problems.push(`server/${unit}: no layer names this unit (add it to LAYERS)`);

for (const i of fromCore) {
  problems.push(`core imports ${layerOf.get(unitOf(i.to))} ${unitOf(i.to)}: ${show(i)}`);
}
for (const i of fromGate) {
  problems.push(`gate imports ${layerOf.get(unitOf(i.to))} ${unitOf(i.to)}: ${show(i)}`);
}

const allowed = new Set(ALLOWED_CYCLE_IMPORTS.map((a) => `${a.from} ${a.to}`));
const kept = imports.filter((i) => !allowed.has(`${i.from} ${i.to}`));
for (const component of components(units, unitGraph(kept)).filter((c) => c.length > 1)) {
  const inside = new Set(component);
  const within = kept.filter((i) => {
    const a = unitOf(i.from);
    const b = unitOf(i.to);
    return a !== b && inside.has(a) && inside.has(b);
  });
  // A cycle needs at least one import that does not run down the layers: those are listed; the downward ones
  // that close the loop are only counted.
  const rank = (file: string) => RANK[layerOf.get(unitOf(file)) ?? "top"];
  const against = within.filter((i) => rank(i.to) >= rank(i.from));
  problems.push(
    `cycle between ${component.join(", ")}: ${against.length} import(s) upward or within a layer (listed), ${within.length - against.length} downward`,
  );
  for (const i of against) problems.push(`  ${show(i)}`);
}

const present = new Set(imports.map((i) => `${i.from} ${i.to}`));
for (const a of ALLOWED_CYCLE_IMPORTS) {
  if (!present.has(`${a.from} ${a.to}`)) {
    process.stderr.write(`warning: allowlisted import no longer exists, remove it: ${a.from} -> ${a.to}\n`);
  }
}

if (problems.length > 0) {
  process.stderr.write(`check-architecture: ${problems.length} problem(s)\n${problems.join("\n")}\n`);
  process.exit(1);
}
process.stdout.write(
  `check-architecture: ${units.length} units, ${files.length} files, no core or gate import upward, no cycle but the ${ALLOWED_CYCLE_IMPORTS.length} allowlisted imports\n`,
);
