/**
 * Pages run under a Content-Security-Policy without 'unsafe-eval' (docs/security.md, "Headers"). Zod compiles
 * object parsers with `new Function` when it may, and finds out by trying once on the first parse: under the policy
 * that try is refused and reported as a violation (zod then parses without it, as it would anyway). Saying
 * `jitless` up front skips the try. It goes through zod's shared global config object, which zod adopts whether it
 * loads before or after this module. In the browser only: the server keeps zod's compiled parsers.
 */
if (typeof window !== "undefined") {
  const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  holder.__zod_globalConfig ??= {};
  holder.__zod_globalConfig.jitless = true;
}

export {};
