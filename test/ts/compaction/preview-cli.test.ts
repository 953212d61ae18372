// `ctxwin compact --dry-run` as a user runs it: the plan printed as a diff (or JSON), equal to what
// the same command then does, and nothing written.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCtxwin } from "../support/cli.js";

const FILE = "examples/data/billing-request.json";

describe("ctxwin compact --dry-run", () => {
  it("prints the plan the compaction then carries out", async () => {
    for (const target of [20_000, 5000, 3000]) {
      const dry = await runCtxwin(["compact", FILE, "--target", String(target), "--dry-run", "--json"]);
      expect(dry.code, dry.stderr).toBe(0);
      const plan = JSON.parse(dry.stdout) as {
        runs: boolean;
        units: Array<{ id: string; action: string; freed: number; index: number }>;
        tokensBefore: number;
        tokensAfter: number;
        messagesAfter: number;
        toolDefinitionTokens: number;
        cost?: { before: number; after: number };
      };
      const real = await runCtxwin(["compact", FILE, "--target", String(target), "--json"]);
      const report = JSON.parse(real.stdout) as {
        tokensAfter: number;
        messagesAfter: number;
        replaced: number;
        removed: number;
        levels: unknown[];
      };
      expect(plan.runs).toBe(true);
      expect(plan.tokensAfter + plan.toolDefinitionTokens).toBe(report.tokensAfter);
      expect(plan.messagesAfter).toBe(report.messagesAfter);
      expect(plan.units.filter((u) => u.action === "summarize" || u.action === "drop")).toHaveLength(report.removed);
      expect(plan.units.filter((u) => u.action !== "summarize" && u.action !== "drop")).toHaveLength(report.replaced);
      for (const u of plan.units) {
        expect(u.freed).toBeGreaterThan(0);
        expect(u.index).toBeGreaterThanOrEqual(0);
      }
      expect(plan.cost?.after).toBeLessThan(plan.cost?.before ?? 0);
    }
  });

  it("counts the omission marker a trim leaves, as the written file has it", async () => {
    // Plain turns only: the last level trims the middle and leaves "[N messages omitted…]" there (naming recall ids).
    const messages = [{ role: "system", content: "You are a helpful assistant." }];
    for (let i = 0; i < 90; i++)
      messages.push({
        role: i % 2 ? "assistant" : "user",
        content: `Message ${i}: ${"the quick brown fox jumps over the lazy dog and runs on through the field ".repeat(20)}`,
      });
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-dry-run-"));
    try {
      const file = join(dir, "long.json");
      const out = join(dir, "out.json");
      writeFileSync(file, JSON.stringify(messages));
      const dry = await runCtxwin(["compact", file, "--target", "3000", "--dry-run", "--json"]);
      expect(dry.code, dry.stderr).toBe(0);
      const plan = JSON.parse(dry.stdout) as { messagesBefore: number; messagesAfter: number };
      const real = await runCtxwin(["compact", file, "--target", "3000", "-o", out]);
      expect(real.code, real.stderr).toBe(0);
      const written = JSON.parse(readFileSync(out, "utf8")) as Array<{ role: string; content: string }>;
      expect(written.some((m) => /^\[\d+ messages omitted[\];]/.test(m.content))).toBe(true);
      expect(plan.messagesBefore).toBe(91);
      expect(plan.messagesAfter).toBe(written.length);
      expect(real.stdout).toContain(`wrote ${written.length} messages`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads as a diff, and refuses -o", async () => {
    const dry = await runCtxwin(["compact", FILE, "--target", "5000", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("planned, nothing changed");
    expect(dry.stdout).toMatch(/^~ #4 +tool +call_1 +cleared/m);
    expect(dry.stdout).toMatch(/^~ #6 +tool +call_2 +cut +3,652 -> \d+ tokens/m);
    expect(dry.stdout).toMatch(/^result: 69 -> 69 messages, [\d,]+ -> [\d,]+ tokens \(fits the target\)$/m);
    expect(dry.stdout).toMatch(/^input cost per request: \$[\d.]+ -> \$[\d.]+ \(at \$[\d.]+ per 1M input tokens\)$/m);
    const refused = await runCtxwin(["compact", FILE, "--target", "5000", "--dry-run", "-o", "out.json"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--dry-run writes nothing");
  });
});
