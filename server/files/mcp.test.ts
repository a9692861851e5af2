import type { Client } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapUser, createDeveloper } from "@/server/accounts/testing";
import { dbReady } from "@/server/db/client";
import { apiKeys } from "@/server/gate/tables";
import { connectClient } from "@/server/mcp/testing";
import { createMerchant, type Merchant } from "@/server/storefronts/testing";
import { call } from "@/server/testing/api";
import { setTestEnv } from "@/server/webhooks/testing";
import { serveFile } from "./http";
import type { FileDto } from "./schema";
import { files } from "./tables";
import {
  fillStorageQuota,
  type ImageServer,
  keepFilesInTemporaryFolder,
  makeAnimatedGif,
  makeJpeg,
  pngClaiming,
  startImageServer,
} from "./testing";

// docs/mcp.md, "Tools": marea.import_image through the MCP door (the official client SDK, in-process), against a
// real image server on loopback. The SSRF guard admits loopback only with the local-development flag, set here.
setTestEnv({ UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS: "1" });
keepFilesInTemporaryFolder();

let images: ImageServer;
let base: string;
let hits: string[];
let merchant: Merchant;
let client: Client;

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown };

async function importImage(mcp: Client, url: string): Promise<ToolResult> {
  return (await mcp.callTool({ name: "marea.import_image", arguments: { url } })) as ToolResult;
}

function errorOf(result: ToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  const [first] = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(first?.text ?? "{}") as Record<string, unknown>;
}

async function filesFetchedFrom(url: string) {
  const db = await dbReady();
  return db.select().from(files).where(eq(files.sourceUrl, url));
}

beforeAll(async () => {
  images = await startImageServer({
    "/photo.jpg": { type: "image/jpeg", bytes: await makeJpeg(1200, 900) },
    // A page that says it is a PNG: the bytes decide.
    "/fake.png": { type: "image/png", bytes: "<html>not an image</html>" },
    "/bomb.png": { type: "image/png", bytes: pngClaiming(9000, 9000) },
    "/long.gif": { type: "image/gif", bytes: await makeAnimatedGif(101) },
    "/huge.jpg": { type: "image/jpeg", bytes: Buffer.alloc(10 * 1024 * 1024 + 1, 0xff) },
  });
  ({ base, hits } = images);
  merchant = await createMerchant({ plan: "PRO" });
  client = await connectClient(merchant.userKey);
});

afterAll(async () => {
  await client?.close();
  await images?.close();
});

describe("marea.import_image", () => {
  it("fetches the image once and answers {file} as POST /v1/files does; the variants follow", async () => {
    const result = await importImage(client, `${base}/photo.jpg`);
    expect(result.isError).toBeFalsy();
    const { file } = result.structuredContent as { file: FileDto };
    expect(file).toMatchObject({ contentType: "image/jpeg", width: 1200, height: 900 });
    expect(file.id).toMatch(/^fil_/);
    expect(hits.filter((hit) => hit === "/photo.jpg")).toHaveLength(1);
    const read = await call<{ file: FileDto }>("GET", `/v1/files/${file.id}`, { key: merchant.userKey });
    expect(read.body.file).toEqual(file);
    expect((await filesFetchedFrom(`${base}/photo.jpg`)).map((row) => row.id)).toEqual([file.id]);
    // The WebP variants are made after the answer.
    let served: Response | null = null;
    for (let waited = 0; waited < 20_000 && served?.status !== 200; waited += 50) {
      served = await serveFile(file.id, "w480.webp");
      if (served.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(served?.headers.get("content-type")).toBe("image/webp");
    expect(await sharp(Buffer.from(await (served as Response).arrayBuffer())).metadata()).toMatchObject({
      width: 480,
      height: 360,
    });
  });

  it("the upload's refusals, naming url, nothing stored: not an image, a decompression bomb, too many frames", async () => {
    for (const path of ["/fake.png", "/bomb.png", "/long.gif"]) {
      const error = errorOf(await importImage(client, `${base}${path}`));
      expect(error, path).toMatchObject({ code: "invalid_request", param: "url" });
      expect(await filesFetchedFrom(`${base}${path}`), path).toEqual([]);
    }
  });

  it("over 10 MiB: payload_too_large, nothing stored", async () => {
    const error = errorOf(await importImage(client, `${base}/huge.jpg`));
    expect(error).toMatchObject({ code: "payload_too_large", param: "url" });
    expect(await filesFetchedFrom(`${base}/huge.jpg`)).toEqual([]);
  });

  it("a URL that does not answer with an image, or that the SSRF guard refuses: invalid_request with url", async () => {
    const missing = errorOf(await importImage(client, `${base}/missing.jpg`));
    expect(missing).toMatchObject({ code: "invalid_request", param: "url" });
    expect(String(missing.message)).toContain("404");
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "https://10.0.0.1/a.jpg",
      "ftp://example.com/a",
    ]) {
      expect(errorOf(await importImage(client, url)), url).toMatchObject({
        code: "invalid_request",
        param: "url",
      });
    }
  });

  it("over the plan's storage quota: 402 plan_storage_quota_reached with upgrade", async () => {
    const developer = await createDeveloper();
    const full = await bootstrapUser(developer.key);
    const db = await dbReady();
    await db.update(apiKeys).set({ rpm: 100_000 }).where(eq(apiKeys.accountId, full.userId));
    await fillStorageQuota(full.userId);
    const mcp = await connectClient(full.userKey);
    try {
      const error = errorOf(await importImage(mcp, `${base}/photo.jpg`));
      expect(error).toMatchObject({ code: "plan_storage_quota_reached" });
      expect(error.upgrade).toMatchObject({ currentPlan: "FREE_NEW", requiredPlan: "PRO" });
    } finally {
      await mcp.close();
    }
  });

  it("a key without catalog:write: insufficient_scope, nothing fetched", async () => {
    const reader = await createMerchant({ scopes: ["catalog:read"] });
    const mcp = await connectClient(reader.userKey);
    try {
      const before = hits.length;
      const error = errorOf(await importImage(mcp, `${base}/photo.jpg`));
      expect(error).toMatchObject({ code: "insufficient_scope", requiredScopes: ["catalog:write"] });
      expect(hits.length).toBe(before);
    } finally {
      await mcp.close();
    }
  });
});
