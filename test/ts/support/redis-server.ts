// A real redis-server for the tests and benchmarks: started on a Unix socket in a fresh temporary
// directory (no TCP port, so parallel test files never collide) and stopped afterwards.
// Debian's `redis-server` package provides it; scripts/system-deps.mjs installs it.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  socket: string;
  directory: string;
  stop(): Promise<void>;
}

/** Starts redis-server with an append-only file fsync'd on every write (acknowledged = on disk). */
export async function startRedisServer(): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), "ctxwin-redis-"));
  const socket = join(directory, "redis.sock");
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", directory, "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no", "--loglevel", "warning"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`redis-server did not start (is Debian's redis-server installed?): ${error.message}`)));
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    // The socket file appears once the server accepts connections.
    const started = Date.now();
    const poll = async () => {
      const { existsSync } = await import("node:fs");
      if (existsSync(socket)) return resolve();
      if (Date.now() - started > 10_000) return reject(new Error(`redis-server did not open ${socket} within 10 s: ${output}`));
      setTimeout(poll, 10);
    };
    void poll();
  });
  return {
    socket,
    directory,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
