// A real redis-server for the tests and benchmarks: started on a Unix socket in a fresh temporary
// directory (no TCP port, so parallel test files never collide) and stopped afterwards. It can be
// killed and started again on the same socket and data (a crash and a restart), with its
// append-only file fsync'd on every write (acknowledged = on disk) or with no persistence at all.
// Debian's `redis-server` package provides it; scripts/system-deps.mjs installs it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServerOptions {
  /** "aof" (default): appendonly yes, appendfsync always. "none": nothing survives a restart. */
  persistence?: "aof" | "none";
}

export interface RedisServer {
  socket: string;
  directory: string;
  /** The server's process id (changes on restart). */
  readonly pid: number;
  /** Kills the server (SIGKILL by default: a crash) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same socket and data directory. */
  start(): Promise<void>;
  /** kill() then start(). */
  restart(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const directory = mkdtempSync(join(tmpdir(), "ctxwin-redis-"));
  const socket = join(directory, "redis.sock");
  const persistence = options.persistence === "none" ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", "always"];
  let child: ChildProcess;
  let exited: Promise<void>;

  async function start(): Promise<void> {
    rmSync(socket, { force: true });
    child = spawn(
      "redis-server",
      [
        "--port",
        "0",
        "--unixsocket",
        socket,
        "--unixsocketperm",
        "700",
        "--dir",
        directory,
        "--save",
        "",
        ...persistence,
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const current = child;
    exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    await new Promise<void>((resolve, reject) => {
      current.once("error", (error) =>
        reject(new Error(`redis-server did not start (is Debian's redis-server installed?): ${error.message}`)),
      );
      current.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
      // The socket file appears once the server accepts connections.
      const started = Date.now();
      const poll = () => {
        if (existsSync(socket)) return resolve();
        if (Date.now() - started > 10_000) return reject(new Error(`redis-server did not open ${socket} within 10 s: ${output}`));
        setTimeout(poll, 10);
      };
      poll();
    });
  }

  async function kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  }

  await start();
  return {
    socket,
    directory,
    get pid() {
      return child.pid as number;
    },
    kill,
    start,
    async restart(signal) {
      await kill(signal);
      await start();
    },
    async stop() {
      await kill("SIGTERM");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
