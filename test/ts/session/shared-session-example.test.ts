// examples/shared-session.ts runs: three processes continue one session, then /export and /import.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

it("examples/shared-session.ts: one context across three worker processes, exported and imported losslessly", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "examples/shared-session.ts"], {
    cwd: root,
    encoding: "utf8",
  });
  expect(stdout).toContain("session support-ticket-42: 6 messages");
  expect(stdout).toContain("I can see 2 earlier question(s)");
  expect(stdout).toContain("imported 6 messages, agent support-bot");
  expect(stdout).toContain("round trip lossless: true");
}, 60_000);
