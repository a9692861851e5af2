import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { signatureHeader } from "./verify";

// The copy-paste verification code of /docs/events (docs/recipes/, docs/webhooks.md, "Verifying a delivery") run
// for real against what Marea's signer (the one every delivery uses) produces: a right signature passes; a changed
// body, another secret, a stale or future `t` and a malformed header fail. Node and Python always run; PHP and Go
// run where their toolchains are installed (`apt-get install php-cli golang-go`).

const RECIPES = path.resolve("docs/recipes");
const SECRET = "3f9a0c1d2b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8";
const OTHER_SECRET = "0".repeat(64);
const BODY =
  '{"type":"order.paid","eventId":"0b0d0f53-5a3c-4e0e-9f2f-7f1d3c5e2a10","data":{"customer":{"name":"Ana García"}}}';

type Case = { name: string; body: string; header: string; secret: string; expected: boolean };

function cases(): Case[] {
  const now = Math.floor(Date.now() / 1000);
  const good = signatureHeader(SECRET, now, BODY);
  return [
    { name: "a delivery signed now", body: BODY, header: good, secret: SECRET, expected: true },
    {
      name: "a rotated header with two v1 values",
      body: BODY,
      header: `${good},v1=${"0".repeat(64)}`,
      secret: SECRET,
      expected: true,
    },
    {
      name: "a changed body",
      body: BODY.replace("Ana", "Ann"),
      header: good,
      secret: SECRET,
      expected: false,
    },
    { name: "another secret", body: BODY, header: good, secret: OTHER_SECRET, expected: false },
    {
      // Far outside the 300 s window: the other processes start (and Go compiles) a while after `now`.
      name: "t older than 300 s",
      body: BODY,
      header: signatureHeader(SECRET, now - 900, BODY),
      secret: SECRET,
      expected: false,
    },
    {
      name: "t more than 300 s ahead",
      body: BODY,
      header: signatureHeader(SECRET, now + 900, BODY),
      secret: SECRET,
      expected: false,
    },
    { name: "no v1", body: BODY, header: `t=${now}`, secret: SECRET, expected: false },
    { name: "garbage", body: BODY, header: "nonsense", secret: SECRET, expected: false },
    { name: "an empty header", body: BODY, header: "", secret: SECRET, expected: false },
  ];
}

function hasCommand(command: string, versionFlag = "--version"): boolean {
  return spawnSync(command, [versionFlag], { stdio: "ignore" }).status === 0;
}

/** Runs `program` once per case (inputs as JSON on stdin) and returns one boolean per case. */
function runAll(command: string, args: string[], all: Case[], cwd?: string): boolean[] {
  const output = execFileSync(command, args, {
    input: JSON.stringify(all),
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });
  return JSON.parse(output) as boolean[];
}

describe("the verification recipes of /docs/events", () => {
  it("Node (verify-webhook.mjs) accepts Marea's signature and refuses every tampered case", async () => {
    const { verifyMareaSignature } = (await import(path.join(RECIPES, "verify-webhook.mjs"))) as {
      verifyMareaSignature: (body: Buffer, header: string, secret: string) => boolean;
    };
    for (const c of cases()) {
      expect(verifyMareaSignature(Buffer.from(c.body, "utf8"), c.header, c.secret), c.name).toBe(c.expected);
    }
  });

  it("Python (verify_webhook.py)", () => {
    const all = cases();
    const program = `
import json, sys
exec(open(${JSON.stringify(path.join(RECIPES, "verify_webhook.py"))}).read())
print(json.dumps([verify_marea_signature(c["body"].encode("utf-8"), c["header"], c["secret"]) for c in json.load(sys.stdin)]))
`;
    expect(runAll("python3", ["-c", program], all)).toEqual(all.map((c) => c.expected));
  });

  it.skipIf(!hasCommand("php"))("PHP (verify_webhook.php)", () => {
    const all = cases();
    const program = `require ${JSON.stringify(path.join(RECIPES, "verify_webhook.php"))};
$cases = json_decode(stream_get_contents(STDIN), true);
echo json_encode(array_map(fn ($c) => verify_marea_signature($c['body'], $c['header'], $c['secret']), $cases));`;
    expect(runAll("php", ["-r", program], all)).toEqual(all.map((c) => c.expected));
  });

  it.skipIf(!hasCommand("go", "version"))(
    "Go (verify_webhook.go)",
    () => {
      const all = cases();
      const dir = mkdtempSync(path.join(tmpdir(), "marea-go-"));
      try {
        writeFileSync(path.join(dir, "go.mod"), "module recipe\n\ngo 1.19\n");
        execFileSync("mkdir", ["-p", path.join(dir, "webhook")]);
        writeFileSync(
          path.join(dir, "webhook", "verify_webhook.go"),
          readFileSync(path.join(RECIPES, "verify_webhook.go"), "utf8"),
        );
        writeFileSync(
          path.join(dir, "main.go"),
          `package main

import (
	"encoding/json"
	"os"
	"time"

	"recipe/webhook"
)

func main() {
	var cases []struct{ Body, Header, Secret string }
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	results := []bool{}
	for _, c := range cases {
		results = append(results, webhook.VerifyMareaSignature([]byte(c.Body), c.Header, c.Secret, 5*time.Minute))
	}
	_ = json.NewEncoder(os.Stdout).Encode(results)
}
`,
        );
        const env = {
          ...process.env,
          GOCACHE: path.join(dir, ".cache"),
          GOFLAGS: "-mod=mod",
          GOTOOLCHAIN: "local",
        };
        const output = execFileSync("go", ["run", "."], {
          cwd: dir,
          env,
          input: JSON.stringify(all),
          encoding: "utf8",
          timeout: 180_000,
        });
        expect(JSON.parse(output)).toEqual(all.map((c) => c.expected));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    200_000,
  );
});
