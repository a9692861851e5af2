import { env } from "@/server/env";
import { DiskFileStore } from "./store-disk";
import { S3FileStore } from "./store-s3";

/**
 * Where file bytes live (docs/operations.md, "File storage"): a folder under DATA_DIR by default, an
 * S3-compatible bucket when `S3_BUCKET` is set. Keys are `{fileId}/original` and `{fileId}/w{width}.webp`.
 */
export type FileStore = {
  put: (key: string, bytes: Uint8Array, contentType: string) => Promise<void>;
  /** The bytes, or null when the key holds nothing. */
  get: (key: string) => Promise<Uint8Array | null>;
  /** Removes every key given; a key that holds nothing is no error. */
  remove: (keys: string[]) => Promise<void>;
};

let current: FileStore | undefined;

export function fileStore(): FileStore {
  if (current) return current;
  const e = env();
  current = e.S3_BUCKET
    ? new S3FileStore({
        bucket: e.S3_BUCKET,
        endpoint: e.S3_ENDPOINT,
        region: e.S3_REGION,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        forcePathStyle: e.S3_FORCE_PATH_STYLE ? e.S3_FORCE_PATH_STYLE === "1" : Boolean(e.S3_ENDPOINT),
        prefix: e.S3_PREFIX,
      })
    : new DiskFileStore(`${e.DATA_DIR}/files`);
  return current;
}

/** Tests run the same service on another store (the S3-protocol server). */
export function setFileStoreForTests(store: FileStore | undefined): void {
  current = store;
}
