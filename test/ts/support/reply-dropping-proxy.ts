// A small TCP proxy on localhost between a Redis client and redis-server (on its Unix socket)
// that loses replies: the command reaches the server and runs, then the connection it came on is
// cut before the reply gets back, as when a network drops between the two. The client sees an
// error for a command that took effect, the case idempotent appends exist for.
import { createServer, connect, type Socket } from "node:net";

export interface ReplyDroppingProxy {
  host: string;
  port: number;
  /** How many replies were dropped so far. */
  readonly dropped: number;
  /** Drops the reply to the next command named `command` (e.g. "EVALSHA"); resolves once it did. */
  dropNextReply(command: string): Promise<void>;
  /** From now on drops the reply to each `command` with this probability (0 stops). */
  dropRandomly(command: string, probability: number): void;
  close(): Promise<void>;
}

export async function startReplyDroppingProxy(upstreamSocket: string): Promise<ReplyDroppingProxy> {
  let once: { needle: Buffer; resolve: () => void } | undefined;
  let random: { needle: Buffer; probability: number } | undefined;
  let dropped = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = connect(upstreamSocket);
    sockets.add(client);
    sockets.add(upstream);
    // Set when a command of this connection was picked: its reply never comes back.
    let drop: (() => void) | undefined;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (data: Buffer) => {
      if (!drop && once && data.includes(once.needle)) {
        const { resolve } = once;
        once = undefined;
        drop = resolve;
      } else if (!drop && random && data.includes(random.needle) && Math.random() < random.probability) {
        drop = () => {};
      }
      upstream.write(data);
    });
    upstream.on("data", (data: Buffer) => {
      if (drop) {
        const done = drop;
        drop = undefined;
        dropped++;
        cut();
        done();
        return;
      }
      client.write(data);
    });
    for (const socket of [client, upstream]) {
      socket.on("error", cut);
      socket.on("close", () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    host: "127.0.0.1",
    port: address.port,
    get dropped() {
      return dropped;
    },
    dropNextReply(command) {
      return new Promise<void>((resolve) => {
        once = { needle: Buffer.from(`\r\n${command}\r\n`), resolve };
      });
    },
    dropRandomly(command, probability) {
      random = probability > 0 ? { needle: Buffer.from(`\r\n${command}\r\n`), probability } : undefined;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
