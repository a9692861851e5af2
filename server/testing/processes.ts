import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

// tsx's command line run by this process's own Node (the project's Node 24 under npm scripts), whatever `node` is
// first on PATH.
const TSX_CLI = path.resolve("node_modules/tsx/dist/cli.mjs");

export type RunningProcess = {
  child: ChildProcess;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
};

/** Starts `tsx <script> ...args` and resolves once it prints a line matching `ready`. */
export async function startTsxProcess(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<RunningProcess & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [TSX_CLI, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (data: Buffer) => {
      output += data.toString();
      const found = output.match(ready);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited ${code}:\n${output}`));
    });
  });
  return {
    child,
    match,
    output: () => output,
    stop: (signal: NodeJS.Signals = "SIGTERM") =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}
