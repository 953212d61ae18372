// Generated logs: lines as services write them, with ISO timestamps that move forward, levels,
// file paths and URLs, hexadecimal request and trace ids, IPv4 addresses, durations, status codes
// and messages of dictionary words, in three line formats (plain, key=value, bracketed).
import { identifier } from "./code.js";
import { fill, type Prng } from "./prng.js";

export const LEVELS = ["DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR"] as const;
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"];

function path(rng: Prng, words: readonly string[]): string {
  return Array.from({ length: rng.range(1, 5) }, () => identifier(rng, words)).join("/");
}

function message(rng: Prng, words: readonly string[]): string {
  return Array.from({ length: rng.range(2, 9) }, () => rng.pick(words)).join(" ");
}

/** About `bytes` of log lines, timestamps increasing from 2026-01-01 by 0-2 s a line. */
export function logsText(rng: Prng, words: readonly string[], bytes: number): string {
  let millis = Date.UTC(2026, 0, 1);
  return fill(bytes, () => {
    millis += rng.int(2000);
    const time = new Date(millis).toISOString();
    const level = rng.pick(LEVELS);
    const service = identifier(rng, words);
    switch (rng.int(3)) {
      case 0:
        return `${time} ${level} [${service}] ${message(rng, words)} (${path(rng, words)}.ts:${rng.range(1, 2000)})\n`;
      case 1:
        return `ts=${time} level=${level.toLowerCase()} svc=${service} method=${rng.pick(METHODS)} path=/${path(rng, words)} status=${rng.pick([200, 201, 204, 301, 400, 404, 500, 503])} dur_ms=${rng.int(5000)}.${rng.int(1000)} req_id=${rng.hex(16)} ip=${rng.int(256)}.${rng.int(256)}.${rng.int(256)}.${rng.int(256)}\n`;
      default:
        return `[${time.replace("T", " ").replace("Z", "")}] ${level.padEnd(5)} ${rng.range(1000, 65535)} --- trace=${rng.hex(32)} ${message(rng, words)}: ${rng.int(100_000)} items in ${rng.int(900)}ms, /var/lib/${path(rng, words)}\n`;
    }
  });
}
