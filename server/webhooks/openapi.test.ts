import { describe, expect, it } from "vitest";
import { call } from "@/server/testing/api";

// The webhook operations appear in /v1/openapi.json with their schemas (docs/webhooks.md, "Endpoints";
// docs/api.md, "Versioning").
describe("OpenAPI document: webhook operations", () => {
  it("lists every webhook operation with its success schema", async () => {
    const res = await call<{
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    }>("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    const ops = Object.values(res.body.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).toEqual(
      expect.arrayContaining([
        "createWebhookEndpoint",
        "listWebhookEndpoints",
        "getWebhookEndpoint",
        "updateWebhookEndpoint",
        "deleteWebhookEndpoint",
        "rotateWebhookSigningSecret",
        "listWebhookDeliveries",
        "sendTestWebhook",
      ]),
    );
    expect(res.body.paths["/v1/webhook_endpoints"]?.post?.responses).toHaveProperty("201");
    expect(res.body.paths["/v1/webhook_endpoints/{id}/test"]?.post?.responses).toHaveProperty("202");
    const endpoint = res.body.components.schemas.WebhookEndpoint;
    expect(endpoint?.required).toEqual(
      expect.arrayContaining(["endpointId", "scope", "url", "signingSecretVersion", "consecutiveFailures"]),
    );
    expect(endpoint?.properties).not.toHaveProperty("signingSecret");
    expect(res.body.components.schemas.WebhookEndpointWithSecret?.required).toContain("signingSecret");
  });
});
