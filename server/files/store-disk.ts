import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { newId } from "@/server/lib/ids";
import { checkedKey } from "./keys";
import type { FileStore } from "./store";

/** Files in a folder (default `{DATA_DIR}/files`): nothing to set up. Writes go to a temporary name, then rename. */
export class DiskFileStore implements FileStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    return join(this.root, checkedKey(key));
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${newId("req")}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async remove(keys: string[]): Promise<void> {
    const folders = new Set<string>();
    for (const key of keys) {
      const path = this.pathOf(key);
      await rm(path, { force: true });
      folders.add(dirname(path));
    }
    // The file's folder goes once it is empty (rm of a non-empty folder without `recursive` fails: kept).
    for (const folder of folders) await rm(folder, { force: false }).catch(() => undefined);
  }
}
