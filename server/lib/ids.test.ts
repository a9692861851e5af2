import { describe, expect, it } from "vitest";
import { newId, newWebhookEndpointId } from "./ids";

// docs/api.md, "Identifiers".
describe("ids", () => {
  it("are a prefix plus a lowercase ULID, unique, and sort in creation order within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => newId("stf"));
    for (const id of ids) expect(id).toMatch(/^stf_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("webhook endpoint ids match ^mk_we_[0-9a-f]{16}$", () => {
    expect(newWebhookEndpointId()).toMatch(/^mk_we_[0-9a-f]{16}$/);
  });
});
