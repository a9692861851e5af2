import sharp from "sharp";
import { AppError } from "@/server/errors";

/**
 * What an image may be (docs/api.md, "Files"). Checked from the header, before a pixel is decoded, so a
 * decompression bomb (a few KiB that claim 100,000 x 100,000 pixels) costs nothing.
 */
export const IMAGE_LIMITS = {
  /** Bytes of one upload (413 while the body arrives). */
  maxBytes: 10 * 1024 * 1024,
  /** Pixels of one frame. */
  maxPixels: 40_000_000,
  /** Pixels of one side. */
  maxSide: 8000,
  /** Frames of an animated GIF or WebP. */
  maxFrames: 100,
} as const;

export const IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export function isImageType(value: string): value is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(value);
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return Buffer.from(bytes.subarray(start, start + length)).toString("latin1");
}

/** The image type the bytes are, read from their signature (never from a header the client sent). */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 8 && ascii(bytes, 0, 8) === "\x89PNG\r\n\x1a\n") return "image/png";
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(ascii(bytes, 0, 6))) return "image/gif";
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP")
    return "image/webp";
  if (bytes.length >= 16 && ascii(bytes, 4, 4) === "ftyp") {
    // ISO-BMFF: the major brand, then the compatible brands up to the end of the ftyp box.
    const boxSize = Math.min(Buffer.from(bytes).readUInt32BE(0), bytes.length, 256);
    for (let offset = 8; offset + 4 <= boxSize; offset += 4) {
      if (offset === 12) continue; // minor version
      const brand = ascii(bytes, offset, 4);
      if (brand === "avif" || brand === "avis") return "image/avif";
    }
  }
  return null;
}

export type ImageInfo = { type: ImageType; width: number; height: number; frames: number };

function refused(en: string, es: string, pt: string): AppError {
  return new AppError("invalid_request", { param: "file", detail: { en, es, pt } });
}

/**
 * Reads what the header says and refuses (400 `invalid_request`, param `file`) bytes that are not the image type
 * they claim, over 40 megapixels or 8000 px a side, or animated over `IMAGE_LIMITS.maxFrames` frames. Nothing is
 * decoded: sharp's `metadata()` reads the header only. Width and height are as displayed (EXIF orientation applied).
 */
export async function inspectImage(bytes: Uint8Array, claimed: string | null): Promise<ImageInfo> {
  const type = sniffImageType(bytes);
  if (!type)
    throw refused(
      "The file is not a JPEG, PNG, WebP, GIF or AVIF image.",
      "El archivo no es una imagen JPEG, PNG, WebP, GIF o AVIF.",
      "O arquivo não é uma imagem JPEG, PNG, WebP, GIF ou AVIF.",
    );
  if (claimed !== null && claimed !== type)
    throw refused(
      `The file's content is ${type}, not the ${claimed} it claims to be.`,
      `El contenido del archivo es ${type}, no el ${claimed} que declara.`,
      `O conteúdo do arquivo é ${type}, não o ${claimed} declarado.`,
    );
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { animated: true, limitInputPixels: false }).metadata();
  } catch {
    throw refused(
      "The image could not be read: its header is damaged.",
      "No se pudo leer la imagen: su cabecera está dañada.",
      "Não foi possível ler a imagem: o cabeçalho está danificado.",
    );
  }
  const frames = meta.pages ?? 1;
  const frameHeight = meta.pageHeight ?? meta.height ?? 0;
  const isTurned = (meta.orientation ?? 1) >= 5;
  const width = isTurned ? frameHeight : (meta.width ?? 0);
  const height = isTurned ? (meta.width ?? 0) : frameHeight;
  if (width <= 0 || height <= 0)
    throw refused("The image has no size.", "La imagen no tiene tamaño.", "A imagem não tem tamanho.");
  if (
    width > IMAGE_LIMITS.maxSide ||
    height > IMAGE_LIMITS.maxSide ||
    width * height > IMAGE_LIMITS.maxPixels
  )
    throw refused(
      `The image is ${width} x ${height} px; the limit is 40 megapixels and 8000 px a side.`,
      `La imagen mide ${width} x ${height} px; el límite es 40 megapíxeles y 8000 px por lado.`,
      `A imagem mede ${width} x ${height} px; o limite é 40 megapixels e 8000 px por lado.`,
    );
  if (frames > IMAGE_LIMITS.maxFrames)
    throw refused(
      `The animation has ${frames} frames; the limit is ${IMAGE_LIMITS.maxFrames}.`,
      `La animación tiene ${frames} fotogramas; el límite es ${IMAGE_LIMITS.maxFrames}.`,
      `A animação tem ${frames} quadros; o limite é ${IMAGE_LIMITS.maxFrames}.`,
    );
  return { type, width, height, frames };
}

/** Pixels sharp may decode for an image that passed `inspectImage` (every frame of an animation). */
function pixelBudget(info: ImageInfo): number {
  return info.width * info.height * info.frames + 1;
}

/**
 * The bytes that are stored and served: re-encoded in the same format with every metadata block dropped (EXIF
 * GPS, camera serial numbers, XMP, comments; sharp keeps none unless asked), and the EXIF orientation applied to
 * the pixels. docs/api.md, "Files".
 */
export async function normalizeImage(
  bytes: Uint8Array,
  info: ImageInfo,
): Promise<{ bytes: Buffer; width: number; height: number }> {
  const isAnimated = info.frames > 1;
  let pipeline = sharp(bytes, { animated: isAnimated, limitInputPixels: pixelBudget(info) });
  if (!isAnimated) pipeline = pipeline.rotate();
  switch (info.type) {
    case "image/jpeg":
      pipeline = pipeline.jpeg({ quality: 90 });
      break;
    case "image/png":
      pipeline = pipeline.png();
      break;
    case "image/webp":
      pipeline = pipeline.webp({ quality: 90 });
      break;
    case "image/gif":
      pipeline = pipeline.gif();
      break;
    case "image/avif":
      pipeline = pipeline.avif({ quality: 60, effort: 2 });
      break;
  }
  const { data, info: out } = await pipeline.toBuffer({ resolveWithObject: true });
  return { bytes: data, width: out.width, height: out.pageHeight ?? out.height };
}

/** The widths of the WebP variants (docs/api.md, "Files"); never wider than the original. */
export const VARIANT_WIDTHS = [160, 480, 960, 1600] as const;

export function variantWidthsFor(width: number): number[] {
  const widths = VARIANT_WIDTHS.filter((w) => w <= width);
  return widths.length > 0 ? widths : [width];
}

/**
 * The WebP variants of an image (first frame of an animation), each at most its width, never upscaled. The
 * original is decoded once, at the largest width (JPEG shrink-on-load makes that cheap), and the smaller ones are
 * made from that.
 */
export async function makeVariants(
  bytes: Uint8Array,
  info: { width: number; height: number; frames: number },
): Promise<Array<{ width: number; height: number; bytes: Buffer }>> {
  const widths = variantWidthsFor(info.width);
  const largest = widths[widths.length - 1] as number;
  const { data, info: raw } = await sharp(bytes, {
    animated: false,
    limitInputPixels: info.width * info.height * Math.max(1, info.frames) + 1,
  })
    .rotate()
    .resize({ width: largest, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out: Array<{ width: number; height: number; bytes: Buffer }> = [];
  for (const width of widths) {
    const { data: webp, info: made } = await sharp(data, {
      raw: { width: raw.width, height: raw.height, channels: raw.channels },
    })
      .resize({ width, withoutEnlargement: true })
      .webp({ quality: 78 })
      .toBuffer({ resolveWithObject: true });
    out.push({ width: made.width, height: made.height, bytes: webp });
  }
  return out;
}
