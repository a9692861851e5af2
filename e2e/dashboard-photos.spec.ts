import type { Locator, Page } from "@playwright/test";
import sharp from "sharp";
import { type Api, checkA11y, expect, screenshot as fullPage, type Mailbox, test } from "./support/fixtures";
import { createPublishedStore } from "./support/storefront";

// Photos in the dashboard (docs/ui.md, "Photos"): a merchant uploads a photo from the product editor through the
// session's upload door (POST /api/files, the service of POST /v1/files), saves, and the public page serves it as
// resized WebP variants; a file that is not an image is refused next to the field. The same for a logo uploaded
// in the storefront editor's branding section (docs/api.md, "Branding images").

async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPage(page, name);
}

/** Every candidate of the image's srcset is a WebP variant that answers image/webp, and the image is shown. */
async function expectWebpVariants(page: Page, image: Locator): Promise<void> {
  const srcset = (await image.getAttribute("srcset")) ?? "";
  const candidates = srcset.split(",").map((part) => part.trim().split(/\s+/)[0] as string);
  expect(candidates.length).toBeGreaterThanOrEqual(1);
  for (const url of candidates) {
    expect(url).toMatch(/\/files\/fil_[0-9a-z]+\/w[0-9]+\.webp$/);
    const res = await page.request.get(url);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("image/webp");
  }
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
    .toBe(true);
}

/** A 640x480 JPEG with a gradient (what a phone's photo is, smaller). */
async function photo(): Promise<Buffer> {
  const width = 640;
  const height = 480;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      pixels[at] = (x * 255) / width;
      pixels[at + 1] = (y * 255) / height;
      pixels[at + 2] = 120;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A verified PRO merchant with a published storefront (e2e/support/storefront.ts), signed in to the dashboard. */
async function merchant(
  page: Page,
  api: Api,
  mail: Mailbox,
  signIn: (page: Page, email: string) => Promise<void>,
) {
  const store = await createPublishedStore(
    api,
    mail,
    { name: "Tacos Don Beto", slug: "tacos", language: "es", currency: "MXN" },
    [
      { title: "Taco al pastor", price: 25, sku: "TAC-1", category: "Tacos", position: 1 },
      { title: "Agua de horchata con un nombre largo", price: 30, category: "Bebidas", position: 2 },
    ],
  );
  // Verified over /v1: the mailed code signs in to the account the partner made.
  await signIn(page, store.email);
  return store;
}

type Product = {
  id: string;
  title: string;
  imageUrl: string | null;
  thumbnailUrl: string | null;
  imageProcessingPending: boolean;
};

test("a merchant uploads a photo in the product editor; the public page serves it as WebP; not an image is refused on the field", async ({
  page,
  api,
  mail,
  signIn,
}) => {
  // A published store, a sign-in, three uploads, variants, axe twice and eight screenshots on 2 shared cores.
  test.slow();
  const m = await merchant(page, api, mail, signIn);
  const productsUrl = `/dashboard/storefronts/${m.storefrontId}/products`;
  await page.goto(productsUrl);
  await page.getByRole("link", { name: "Taco al pastor" }).click();
  await page.waitForURL(/\/products\/prd_[0-9a-z]+$/);
  const productId = page.url().split("/").pop() as string;
  const field = page.getByTestId("pf-photo-photo");

  // Not an image (named .jpg, typed image/jpeg: the server checks the bytes): the error shows next to the field.
  await page.getByLabel("Photo", { exact: true }).setInputFiles({
    name: "menu.jpg",
    mimeType: "image/jpeg",
    buffer: Buffer.from("this is the menu, not a photo"),
  });
  await expect(field.getByText("This file is not an image.")).toBeVisible();
  await expect(page.getByLabel("Photo", { exact: true })).toHaveAttribute("aria-invalid", "true");
  // A text file, pasted into the field: refused before it is sent.
  await page.getByLabel("Photo", { exact: true }).focus();
  await field.evaluate((element) => {
    const data = new DataTransfer();
    data.items.add(new File(["notes"], "notes.txt", { type: "text/plain" }));
    element.dispatchEvent(
      new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
    );
  });
  await expect(field.getByText("This file is not an image.")).toBeVisible();
  await checkA11y(page);
  await screenshot(page, "dashboard-photo-error");

  // A real photo, dropped on the field: uploaded at once, previewed, its URL in the image field.
  const jpeg = (await photo()).toString("base64");
  const dropped = await page.evaluateHandle((base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], "taco.jpg", { type: "image/jpeg" }));
    return data;
  }, jpeg);
  await field.dispatchEvent("dragover", { dataTransfer: dropped });
  await field.dispatchEvent("drop", { dataTransfer: dropped });
  const preview = page.getByTestId("pf-photo-preview");
  await expect(preview).toHaveAttribute("src", /\/files\/fil_[0-9a-z]+$/);
  await expect(field.getByText("This file is not an image.")).toHaveCount(0);
  const fileUrl = (await preview.getAttribute("src")) as string;
  await expect(page.getByLabel("Image URL")).toHaveValue(fileUrl);
  expect(await preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(640);
  await checkA11y(page);
  await screenshot(page, "dashboard-photo-editor");

  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Changes saved.")).toBeVisible();

  // The variants are made after the answer: the product shows the 160 px one as its thumbnail once they exist.
  await expect
    .poll(
      async () => {
        const res = await api<{ product: Product }>(
          "GET",
          `/v1/storefronts/${m.storefrontId}/products/${productId}`,
          { key: m.userKey },
        );
        return res.body.product?.imageProcessingPending === false ? res.body.product : null;
      },
      { timeout: 60_000 },
    )
    .toMatchObject({ imageUrl: fileUrl, thumbnailUrl: `${fileUrl}/w160.webp` });

  // The products table: a thumbnail per row with its size and alt text; at 1280 px every column, the row's Save
  // button included, is on screen or the table scrolls inside its own frame, never the page.
  await page.goto(productsUrl);
  const thumbnail = page.getByRole("img", { name: "Photo of Taco al pastor" });
  await expect(thumbnail).toHaveAttribute("src", `${fileUrl}/w160.webp`);
  await expect(thumbnail).toHaveAttribute("width", "40");
  await expect(thumbnail).toHaveAttribute("height", "40");
  const saveNames = { en: "Save Taco al pastor", es: "Guardar Taco al pastor", pt: "Salvar Taco al pastor" };
  for (const language of ["es", "pt", "en"] as const) {
    await page.context().addCookies([{ name: "marea_lang", value: language, url: page.url() }]);
    await page.reload();
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `page scrolls sideways at ${width} px in ${language}`).toBeLessThanOrEqual(0);
      const save = page.getByRole("button", { name: saveNames[language] });
      await save.scrollIntoViewIfNeeded();
      await expect(save).toBeInViewport({ ratio: 1 });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await checkA11y(page);
  await screenshot(page, "dashboard-products-thumbnails");

  // The public page: the card's srcset names WebP variants that answer image/webp.
  await page.goto(`/s/${m.slug}`);
  const card = page.locator(".sf-card img").first();
  await expectWebpVariants(page, card);
});

test("a merchant uploads a logo in the storefront editor's branding section; the public page's header serves it as WebP", async ({
  page,
  api,
  mail,
  signIn,
}) => {
  // A published store, a sign-in, an upload, variants, axe twice and four screenshots on 2 shared cores.
  test.slow();
  const m = await merchant(page, api, mail, signIn);
  await page.goto(`/dashboard/storefronts/${m.storefrontId}`);
  await page.getByRole("tab", { name: "Branding" }).click();
  await expect(page.getByRole("tab", { name: "Branding", selected: true })).toBeVisible();
  const field = page.getByTestId("sf-logo-photo-photo");

  // A real photo, picked with the file input: uploaded at once, previewed, its URL in the logo URL field.
  await page.getByLabel("Logo photo", { exact: true }).setInputFiles({
    name: "logo.jpg",
    mimeType: "image/jpeg",
    buffer: await photo(),
  });
  const preview = page.getByTestId("sf-logo-photo-preview");
  await expect(preview).toHaveAttribute("src", /\/files\/fil_[0-9a-z]+$/);
  await expect(field.getByText("This file is not an image.")).toHaveCount(0);
  const fileUrl = (await preview.getAttribute("src")) as string;
  await expect(page.getByRole("img", { name: "Logo preview" })).toHaveAttribute("src", fileUrl);
  await expect(page.getByLabel("Logo URL")).toHaveValue(fileUrl);
  await expect
    .poll(() => preview.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)))
    .toBe(640);

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  // Sent as {fileId}: the Storefront answers the file's url (docs/api.md, "Branding images").
  const saved = await api<{ storefront: { branding: { logoUrl?: unknown } | null } }>(
    "GET",
    `/v1/storefronts/${m.storefrontId}`,
    { key: m.userKey },
  );
  expect(saved.body.storefront.branding?.logoUrl).toBe(fileUrl);
  await checkA11y(page);
  await screenshot(page, "dashboard-branding-logo");

  // The public page: once the variants exist (made after the answer; the save expires the cached page), the
  // header's logo names them in its srcset, each answering image/webp, with its width and height set.
  const logo = page.locator("header img");
  await expect
    .poll(
      async () => {
        await page.goto(`/s/${m.slug}`);
        // No logo yet (the cached page from before the save): nothing to wait for on this load.
        if ((await logo.count()) === 0) return "";
        return (await logo.getAttribute("srcset")) ?? "";
      },
      { timeout: 60_000 },
    )
    .toContain(`${fileUrl}/w160.webp 160w`);
  await expect(logo).toHaveCount(1);
  await expect(logo).toHaveAttribute("src", `${fileUrl}/w160.webp`);
  await expect(logo).toHaveAttribute("width", "80");
  await expect(logo).toHaveAttribute("height", "80");
  await expect(logo).toHaveAttribute("sizes", "80px");
  await expectWebpVariants(page, logo);
  await checkA11y(page);
  await screenshot(page, "storefront-branding");
});
