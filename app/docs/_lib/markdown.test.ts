import { describe, expect, it } from "vitest";
import { GUIDES, renderGuide, renderMarkdown, routeForDocLink, slugify } from "./markdown";

// The guides under /docs come from docs/*.md (docs/ui.md, "Developer documentation"): GitHub's anchors, links between
// the files rewritten to the routes, our files' text never taken as HTML.

describe("rendering the guides", () => {
  it("heading ids follow GitHub's anchors, so links written for GitHub keep working", () => {
    expect(slugify("`data` by type")).toBe("data-by-type");
    expect(slugify("Delete, publish, unpublish")).toBe("delete-publish-unpublish");
    expect(slugify("Marea API (`/v1`)")).toBe("marea-api-v1");
    const { html, headings, title } = renderMarkdown(
      "# Title\n\n## Errors\n\n## Errors\n\n### `data` by type\n",
    );
    expect(title).toBe("Title");
    expect(headings.map((h) => h.id)).toEqual(["errors", "errors-1", "data-by-type"]);
    expect(html).toContain('<h3 id="data-by-type"><code>data</code> by type</h3>');
  });

  it("links to docs files become /docs routes; unpublished files keep their words without a dead link", () => {
    expect(routeForDocLink("webhooks.md")).toBe("/docs/webhooks");
    expect(routeForDocLink("api.md#public-storefront")).toBe("/docs/api/guide#public-storefront");
    expect(routeForDocLink("docs/mcp.md")).toBe("/docs/mcp");
    expect(routeForDocLink("schema.graphql")).toBe("/docs/schema.graphql");
    expect(routeForDocLink("architecture.md")).toBeNull();
    const { html } = renderMarkdown(
      "See [webhooks](webhooks.md), [errors](api.md#errors), [ui](ui.md#x), [out](https://example.com) and [here](#a).",
    );
    expect(html).toContain('<a href="/docs/webhooks">webhooks</a>');
    expect(html).toContain('<a href="/docs/api/guide#errors">errors</a>');
    expect(html).toContain(", ui,");
    expect(html).toContain('<a href="https://example.com">out</a>');
    expect(html).toContain('<a href="#a">here</a>');
  });

  it("text that looks like HTML stays text; tables and code scroll in their own focusable box", () => {
    const { html } = renderMarkdown(
      "Send Bearer <key> <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst a = 1 < 2;\n```\n",
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<key>");
    expect(html).toContain("&lt;key&gt;");
    expect(html).toContain('<div class="doc-scroll" role="region" tabindex="0" aria-label="Table 1"><table>');
    expect(html).toContain(
      '<pre class="doc-scroll" tabindex="0" data-language="ts"><code>const a = 1 &lt; 2;',
    );
  });

  it("every published guide renders from its file with a title and sections", () => {
    for (const guide of GUIDES) {
      const rendered = renderGuide(guide.slug);
      expect(rendered.title.length, guide.file).toBeGreaterThan(3);
      expect(rendered.headings.length, guide.file).toBeGreaterThan(3);
    }
  });
});
