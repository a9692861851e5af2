import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "@/server/env";
import { freePort, hasProductionBuild, PRODUCTION_START } from "./production-server";
import { testDatabaseKind } from "./setup-db";

// docs/operations.md, "Container": Docker cannot build here (no daemon, no registry for base images), so the
// image's promises are checked on the build context itself: every COPY source exists and is not ignored, the
// context leaves out installed and built output and data, the runtime stage holds everything the production start
// imports, the entry point is the production start, and Node's major is the one everything else names.

const ROOT = path.resolve(".");
const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
const dockerignore = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const packageJson = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The instructions of one stage: from its FROM line to the next. */
function stage(name: string): string[] {
  const lines = dockerfile.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}\\b`, "i").test(l));
  expect(start, `stage ${name}`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && /^FROM\s/i.test(l));
  return lines.slice(start, end === -1 ? undefined : end);
}

/** True when .dockerignore leaves `file` out of the context (its simple patterns: names and `.env.*`, `!` back in). */
function ignored(file: string): boolean {
  let out = false;
  for (const pattern of dockerignore) {
    const negated = pattern.startsWith("!");
    const body = negated ? pattern.slice(1) : pattern;
    const re = new RegExp(`^${body.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/.*)?$`);
    if (re.test(file)) out = !negated;
  }
  return out;
}

/** Every file the production start's module graph reaches from server/host/main.ts (relative and `@/` imports). */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(path.join(ROOT, file), "utf8");
    // Static imports and re-exports only: the dynamic ones in main.ts are Next's and node's.
    for (const match of source.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)) {
      const specifier = match[1] as string;
      let base: string | null = null;
      if (specifier.startsWith("@/")) base = specifier.slice(2);
      else if (specifier.startsWith(".")) base = path.join(path.dirname(file), specifier);
      if (!base) continue;
      const resolved = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), base].find((c) =>
        existsSync(path.join(ROOT, c)),
      );
      expect(resolved, `${specifier} from ${file}`).toBeDefined();
      queue.push(resolved as string);
    }
  }
  return seen;
}

describe("the container's build context (Docker is not available here)", () => {
  it("multi-stage, Node 24 base, a non-root user, a HEALTHCHECK on /healthz, the production start as its command", () => {
    expect(dockerfile.match(/^FROM\s/gm)?.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24[-.\w]*$/m);
    const runtime = stage("runtime").join("\n");
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(JSON.parse(cmd ?? "[]")).toEqual(["node", "--import", "tsx", "server/host/main.ts"]);
    // Production dependencies only: the build stage prunes the dev ones before the runtime copies node_modules.
    expect(stage("build").join("\n")).toMatch(/npm prune --omit=dev/);
    expect(runtime).toMatch(/COPY --from=build \/app\/node_modules/);
    // What the runtime needs at run time is a production dependency.
    for (const runtimeDep of ["tsx", "next", "prom-client", "postgres"])
      expect(packageJson.dependencies[runtimeDep], runtimeDep).toBeDefined();
  });

  it("Node 24 everywhere: engines, .nvmrc, the node package npm scripts run on, the image", () => {
    expect(packageJson.engines.node).toBe(">=24");
    expect(readFileSync(path.join(ROOT, ".nvmrc"), "utf8").trim()).toBe("24");
    expect(packageJson.devDependencies.node).toMatch(/^24\./);
    // Run through npm/npx (npm test), this suite itself runs on the project's Node 24.
    if (process.env.npm_lifecycle_event || process.env.npm_command)
      expect(process.versions.node.split(".")[0]).toBe("24");
  });

  it("every COPY source exists in the context, and .dockerignore keeps out node_modules, .next, .data and secrets", () => {
    for (const name of ["node_modules", ".next", ".data", ".env", ".env.local", ".git", ".next-bench"])
      expect(ignored(name), name).toBe(true);
    expect(ignored(".env.example")).toBe(false);
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(?:--\S+\s+)*(.+)\s+\S+$/gm)].flatMap((m) =>
      (m[1] as string).split(/\s+/),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      if (source === ".") continue;
      expect(existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(ignored(source), source).toBe(false);
    }
  });

  it("the runtime stage holds every file the production start imports, and what it reads (migrations, guides, the build)", () => {
    const runtime = stage("runtime").join("\n");
    const copied = [...runtime.matchAll(/^COPY --from=build (?:--\S+\s+)*(.+)\s+\S+$/gm)].flatMap((m) =>
      (m[1] as string).split(/\s+/).map((s) => s.replace(/^\/app\//, "")),
    );
    for (const needed of [
      "server",
      "drizzle",
      "docs",
      ".next",
      "node_modules",
      "package.json",
      "tsconfig.json",
    ])
      expect(copied, needed).toContain(needed);
    const files = importGraph("server/host/main.ts");
    expect(files.size).toBeGreaterThan(10);
    for (const file of files)
      expect(
        copied.some((c) => file === c || file.startsWith(`${c}/`)),
        `${file} is imported by the production start but not copied into the image`,
      ).toBe(true);
  });

  it("the image's command is the production start, and it serves from the runtime stage's files alone", async () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(stage("runtime").join("\n"))?.[1] ?? "[]") as string[];
    expect(cmd.slice(1)).toEqual(PRODUCTION_START);
    if (!hasProductionBuild()) return; // npm test builds first; the start needs a build
    // A folder with exactly what the runtime stage copies (node_modules linked, not copied), started as the image
    // starts it: any file the start needs and the image lacks fails here.
    const dir = mkdtempSync(path.join(os.tmpdir(), "marea-image-"));
    const copies = [
      ...stage("runtime")
        .join("\n")
        .matchAll(/^COPY --from=build (?:--\S+\s+)*(.+)\s+\S+$/gm),
    ].flatMap((m) => (m[1] as string).split(/\s+/).map((s) => s.replace(/^\/app\//, "")));
    for (const item of copies) {
      if (item === "node_modules")
        symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
      else cpSync(path.join(ROOT, item), path.join(dir, item), { recursive: true });
    }
    const port = await freePort();
    const child = spawn(process.execPath, cmd.slice(1), {
      cwd: dir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        PORT: String(port),
        HOST: "127.0.0.1",
        APP_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: path.join(dir, "data"),
        WORKER: "off",
        LOG_LEVEL: "warn",
        DATABASE_URL: testDatabaseKind() === "postgres" ? env().DATABASE_URL : undefined,
      },
    });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on("data", (d: Buffer) => {
      output += d.toString();
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 90_000;
      for (;;) {
        const ok = await fetch(`${base}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) break;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the start failed:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // A guide rendered from docs/ (read at run time) and the API description.
      expect((await fetch(`${base}/docs/webhooks`)).status).toBe(200);
      expect((await fetch(`${base}/v1/openapi.json`)).status).toBe(200);
    } finally {
      if (child.pid) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
