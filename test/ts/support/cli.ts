// Runs the `ctxwin` executable as a user's shell would: the package's "bin", a child process,
// its stdout, stderr and exit code.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const packageJson = createRequire(import.meta.url).resolve("ctxwin/package.json");
export const packageRoot = dirname(packageJson);
const bin = (JSON.parse(readFileSync(packageJson, "utf8")) as { bin: { ctxwin: string } }).bin.ctxwin;
/** The executable package.json's "bin" names. */
export const ctxwinBin = join(packageRoot, bin);

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment without model keys, so that nothing reaches a network. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  delete env.ANTHROPIC_API_KEY;
  return { ...env, ...extra };
}

/** `input` as an array is written chunk by chunk, `pauseMs` (default 50) apart: time passes between them. */
export function runCtxwin(
  args: string[],
  options: { input?: string | string[]; pauseMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(ctxwinBin, args, {
      env: options.env ?? offlineEnv(),
      cwd: options.cwd ?? packageRoot,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    const input = options.input ?? "";
    if (typeof input === "string") return void child.stdin.end(input);
    void (async () => {
      for (const [i, chunk] of input.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, options.pauseMs ?? 50));
        child.stdin.write(chunk);
      }
      child.stdin.end();
    })();
  });
}
