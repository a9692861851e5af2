import { log } from "@/server/lib/log";
import { SafeFetchError, safeFetch } from "@/server/webhooks/url-guard";
import { IMAGE_LIMITS } from "./image";

/** How long one image may take to arrive whole (10 MiB on a slow link). */
export const IMAGE_FETCH_TIMEOUT_MS = 15_000;

/** An image's bytes as a remote server sent them (their type is decided by their content, not this header). */
export type FetchedImage = { bytes: Uint8Array; contentType: string | null };

/** Fetches an image, or null when it cannot be had. One function, so the transport can change in one place. */
export type ImageFetcher = (url: string) => Promise<FetchedImage | null>;

/**
 * Why an image could not be fetched: `blocked` (the SSRF guard refused the URL or its addresses), `timeout`,
 * `connection`, `status` (not a 2xx answer), `too_large` (over 10 MiB).
 */
export class ImageFetchError extends Error {
  readonly kind: SafeFetchError["kind"] | "status" | "too_large";
  constructor(kind: ImageFetchError["kind"], message: string) {
    super(message);
    this.name = "ImageFetchError";
    this.kind = kind;
  }
}

/**
 * Fetches an image once under the same SSRF guard as webhook deliveries (`safeFetch`: https only, every resolved
 * address public, the connection pinned to the checked address, no redirects, 15 s;
 * `UNSAFE_ALLOW_LOCAL_WEBHOOK_URLS=1` also admits http:// loopback for local development), at most 10 MiB of it.
 * docs/api.md, "Images". Throws `ImageFetchError` saying why it could not.
 */
export async function fetchImageOnce(
  url: string,
  options: { allowLocal?: boolean } = {},
): Promise<FetchedImage> {
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(url, {
      method: "GET",
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      maxBodyBytes: IMAGE_LIMITS.maxBytes + 1,
      allowLocal: options.allowLocal,
      headers: { accept: "image/*", "user-agent": "service-image-fetcher/1.0" },
    });
  } catch (error) {
    if (error instanceof SafeFetchError) throw new ImageFetchError(error.kind, error.message);
    throw new ImageFetchError("connection", error instanceof Error ? error.message : String(error));
  }
  if (response.status < 200 || response.status >= 300)
    throw new ImageFetchError("status", `answered HTTP ${response.status}`);
  if (response.bytes.byteLength > IMAGE_LIMITS.maxBytes)
    throw new ImageFetchError("too_large", "the image is larger than 10 MiB");
  return { bytes: response.bytes, contentType: response.headers["content-type"] ?? null };
}

/** `fetchImageOnce` for background jobs: anything refused, failing or bigger is `null`, logged with why. */
export async function fetchImageGuarded(
  url: string,
  options: { allowLocal?: boolean } = {},
): Promise<FetchedImage | null> {
  try {
    return await fetchImageOnce(url, options);
  } catch (error) {
    log("info", "image not fetched", {
      url,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}
