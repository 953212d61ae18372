// The framework examples run as users run them (node --import tsx), offline, and stay within
// their 8,000-token window with 1,000 tokens reserved for the answer.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

function run(example: string): string {
  return execFileSync(process.execPath, ["--import", "tsx", join(root, "examples", "frameworks", example)], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });
}

describe("examples/frameworks", () => {
  for (const example of ["ai-sdk.ts", "langchain.ts", "openai-agents.ts", "agent-tools.ts"]) {
    it(`${example} reaches its answer with every prompt within the window`, () => {
      const output = run(example);
      expect(output).toMatch(/Fixed: parseIsoDate/);
      const largest = Number(/largest prompt the model saw: (\d+) tokens/.exec(output)?.[1]);
      expect(largest).toBeGreaterThan(1000);
      expect(largest).toBeLessThanOrEqual(7000);
    }, 120_000);
  }
});
