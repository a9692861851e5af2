import { readFileSync } from "node:fs";
import path from "node:path";
import { Marked, Renderer, TextRenderer, type Tokens } from "marked";

/**
 * The guides under /docs, rendered from the very markdown files in docs/ (docs/ui.md, "Developer documentation"):
 * one file, one route. Links between them (`webhooks.md`, `api.md#errors`) become links between the routes; a
 * file that is not published here (the maintainers' docs) is named, not linked.
 */
export const GUIDES = [
  { slug: "api/guide", file: "api.md" },
  { slug: "webhooks", file: "webhooks.md" },
  { slug: "graphql", file: "graphql.md" },
  { slug: "mcp", file: "mcp.md" },
  { slug: "operations", file: "operations.md" },
] as const;

export type GuideSlug = (typeof GUIDES)[number]["slug"];

/** Files served as they are beside the guides (the GraphQL schema the GraphQL guide links to). */
const RAW_FILES: Record<string, string> = { "schema.graphql": "/docs/schema.graphql" };

export type Heading = { id: string; text: string; depth: number };
export type RenderedGuide = { title: string; html: string; headings: Heading[] };

export function isGuideSlug(value: string): value is GuideSlug {
  return GUIDES.some((guide) => guide.slug === value);
}

/** The /docs route of a markdown file of docs/ (with its fragment), or null when it is not published. */
export function routeForDocLink(href: string): string | null {
  const match = /^(?:\.\/)?(?:docs\/)?([\w.-]+)(#[\w-]*)?$/.exec(href);
  if (!match?.[1]) return null;
  const [, file, fragment = ""] = match;
  const guide = GUIDES.find((g) => g.file === file);
  if (guide) return `/docs/${guide.slug}${fragment}`;
  const raw = RAW_FILES[file];
  return raw ? `${raw}${fragment}` : null;
}

/** GitHub's heading anchors (lowercase, punctuation dropped, spaces to hyphens), so links written for GitHub work. */
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function decodeEntities(text: string): string {
  return text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

/** Renders one markdown text; exported for tests. */
export function renderMarkdown(source: string): RenderedGuide {
  const headings: Heading[] = [];
  const seen = new Map<string, number>();
  let title = "";
  let tables = 0;
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth }: Tokens.Heading): string {
        const text = decodeEntities(this.parser.parseInline(tokens, new TextRenderer()));
        const base = slugify(text) || "section";
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        if (depth === 1 && !title) title = text;
        if (depth === 2 || depth === 3) headings.push({ id, text, depth });
        return `<h${depth} id="${id}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link(token: Tokens.Link): string {
        const { href } = token;
        const inner = this.parser.parseInline(token.tokens);
        if (/^(https?:|mailto:)/.test(href) || href.startsWith("#") || href.startsWith("/")) {
          return `<a href="${escapeHtml(href)}">${inner}</a>`;
        }
        const route = routeForDocLink(href);
        // A maintainers' file (architecture.md, ui.md...) is not published: keep the words, drop the dead link.
        return route ? `<a href="${escapeHtml(route)}">${inner}</a>` : inner;
      },
      // Our files use no raw HTML: anything that looks like a tag (`Bearer <key>`) is text.
      html({ text }: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(text);
      },
      // Wide tables and long code lines scroll inside their own box, never the page; the box is focusable so a
      // keyboard can scroll it too, and named for assistive technology.
      table(token: Tokens.Table): string {
        tables += 1;
        const table = Renderer.prototype.table.call(this, token);
        return `<div class="doc-scroll" role="region" tabindex="0" aria-label="Table ${tables}">${table}</div>`;
      },
      code({ text, lang }: Tokens.Code): string {
        const language = lang ? ` data-language="${escapeHtml(lang.split(/\s/)[0] ?? "")}"` : "";
        return `<pre class="doc-scroll" tabindex="0"${language}><code>${escapeHtml(text)}</code></pre>\n`;
      },
    },
  });
  const html = marked.parse(source, { async: false });
  return { title, html, headings };
}

const cache = new Map<GuideSlug, RenderedGuide>();

/**
 * A guide's HTML, parsed once per process in production (a page view never parses again); in development every
 * view reads the file, so edits show on reload.
 */
export function renderGuide(slug: GuideSlug): RenderedGuide {
  const cached = cache.get(slug);
  if (cached) return cached;
  const guide = GUIDES.find((g) => g.slug === slug);
  if (!guide) throw new Error(`unknown guide ${slug}`);
  const rendered = renderMarkdown(readFileSync(path.join(process.cwd(), "docs", guide.file), "utf8"));
  if (process.env.NODE_ENV === "production") cache.set(slug, rendered);
  return rendered;
}

/** A raw file of docs/ served beside the guides (schema.graphql). */
export function readDocsFile(name: "schema.graphql"): string {
  return readFileSync(path.join(process.cwd(), "docs", name), "utf8");
}
