// Types of page-cache-handler.js (plain JavaScript: Next loads a cache handler at run time without compiling it).
export const SCRIPT_HASHES_HEADER: "x-marea-script-hashes";
export function inlineScriptHashes(html: string): string[];
declare const PageCacheHandler: new (
  ...args: unknown[]
) => {
  get(...args: unknown[]): Promise<unknown>;
  set(...args: unknown[]): Promise<void>;
};
export default PageCacheHandler;
