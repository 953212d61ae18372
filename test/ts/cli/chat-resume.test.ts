// `ctxwin chat --resume` as a user runs it: the chat comes back with the model (/model) and the
// window (--window) it was saved with, and a flag given to the resuming command wins (issue 36:
// it came back with gpt-4o-mini and a 128K window).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCtxwin } from "../support/cli.js";

const cwd = mkdtempSync(join(tmpdir(), "ctxwin-chat-resume-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const banner = (stdout: string) => stdout.split("\n")[0] ?? "";

describe("ctxwin chat --resume", () => {
  it("comes back with the saved window and the model /model chose, unless the resuming command's flags say otherwise", async () => {
    // /model after /save: the switch is saved too (every change after /save is).
    const first = await runCtxwin(["chat", "--offline", "--window", "3000", "--store", "sessions"], {
      input: "Hello\n/save\n/model claude-sonnet-4-5\n",
      cwd,
    });
    expect(first.code).toBe(0);
    expect(banner(first.stdout)).toContain("gpt-4o-mini, window 3,000 tokens");
    const id = /Saved session ([0-9a-f-]+)/.exec(first.stdout)?.[1] as string;
    expect(id).toBeDefined();

    const resumed = await runCtxwin(["chat", "--offline", "--store", "sessions", "--resume", id], { input: "/stats\n", cwd });
    expect(resumed.code).toBe(0);
    expect(banner(resumed.stdout)).toBe("ctxwin chat: claude-sonnet-4-5, window 3,000 tokens (--window), counted with claude-v3, exact");
    expect(resumed.stdout).toContain("Model   claude-sonnet-4-5");
    expect(resumed.stdout).toMatch(/Context \d+ of 3,000 tokens/);
    expect(resumed.stdout).toContain("Messages 2: 1 user, 1 assistant");

    // Flags on the resuming command win, and are what the session keeps from then on.
    const flagged = await runCtxwin(["chat", "--offline", "--store", "sessions", "--resume", id, "--model", "gpt-4o", "--window", "5000"], {
      input: "/stats\n",
      cwd,
    });
    expect(banner(flagged.stdout)).toBe("ctxwin chat: gpt-4o, window 5,000 tokens (--window), counted with o200k_base, exact");
    expect(flagged.stdout).toMatch(/Context \d+ of 5,000 tokens/);
    const again = await runCtxwin(["chat", "--offline", "--store", "sessions", "--resume", id], { input: "", cwd });
    expect(banner(again.stdout)).toBe("ctxwin chat: gpt-4o, window 5,000 tokens (--window), counted with o200k_base, exact");
  });

  it("a chat saved without --window comes back with its model's own window", async () => {
    const first = await runCtxwin(["chat", "--offline", "--model", "gpt-4o", "--store", "sessions"], { input: "Hi\n/save\n", cwd });
    const id = /Saved session ([0-9a-f-]+)/.exec(first.stdout)?.[1] as string;
    const resumed = await runCtxwin(["chat", "--offline", "--store", "sessions", "--resume", id], { input: "", cwd });
    expect(banner(resumed.stdout)).toBe(banner(first.stdout));
    expect(banner(resumed.stdout)).toMatch(/^ctxwin chat: gpt-4o, window 128,000 tokens, /);
  });
});
