// `ctxwin report` and `ctxwin inspect --html` run as a user runs them: the package's bin in a
// child process, on a session file a MessageContextManager wrote through FileSessionStore. The
// pages' rendering in a browser is test/web/report.mjs; their figures, test/ts/report/.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSessionStore, MessageContextManager } from "ctxwin";
import { analyzeSession } from "ctxwin/report";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCtxwin } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "ctxwin-cli-report-"));
const sessions = join(dir, "sessions");
const file = join(sessions, "agent.jsonl");
const LIMITS = { maxTokens: 4000, maxOutputTokens: 500 };

function expectUsage(result: { code: number | null; stdout: string; stderr: string }, command: string, why: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(why);
  expect(result.stderr).toContain(`Usage: ctxwin ${command}`);
}

beforeAll(async () => {
  // A short agent session in a 4,000-token window: reads that grow the context past its trims.
  const store = new FileSessionStore({ directory: sessions, fsync: false });
  const manager = await MessageContextManager.open({ model: "gpt-4o", limits: LIMITS, session: { store, id: "agent" } });
  manager.setSystemPrompt("You are a coding agent.");
  manager.addMessage({ role: "user", content: "Find the bug in src/date.ts." });
  for (let step = 1; step <= 12; step++) {
    manager.getContextForRequest();
    const id = `call_${step}`;
    manager.addMessage({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/m${step}.ts` }) } }],
    });
    manager.addMessage({ role: "tool", tool_call_id: id, content: `export const m${step} = ${step};\n`.repeat(40) });
  }
  await manager.flush();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ctxwin report", () => {
  it("writes a session's page to -o, with the figures renderReport draws for the same limits", async () => {
    const out = join(dir, "report.html");
    const result = await runCtxwin(["report", file, "-o", out, "--window", "4000", "--output-tokens", "500", "--title", "Agent <1>"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^ctxwin: wrote .*report\.html \(\d+ bytes\)\n$/);
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<h1>Agent &lt;1&gt;</h1>");
    const store = new FileSessionStore({ directory: sessions });
    const a = analyzeSession(await store.read("agent"), { model: "gpt-4o", limits: LIMITS });
    expect(a.requests).toHaveLength(12);
    expect(a.compactions.length).toBeGreaterThan(0);
    expect(html).toContain(`data-requests="12"`);
    expect(html.match(/class="marker"/g)).toHaveLength(a.compactions.length);
    expect(html).toContain(`window 4,000 tokens, ${a.effectiveLimit.toLocaleString("en-US")} for the prompt`);
  });

  it("writes the page to standard output without -o, and takes the manager's trim shares", async () => {
    const result = await runCtxwin(["report", file, "--window", "4000", "--output-tokens", "500", "--trim-at", "0.9", "--trim-to", ".5"]);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith("<!doctype html>")).toBe(true);
    // 4,000 less 500 for the response and the 1,000 margin: 2,500 for the prompt.
    expect(result.stdout).toContain("trims and compactions start above 2,250 and cut to 1,250");
  });

  it("refuses a bad command line with its usage (exit 2) and a file that is not a session log (exit 1)", async () => {
    expectUsage(await runCtxwin(["report"]), "report", /no SESSION file given/);
    expectUsage(await runCtxwin(["report", file, file]), "report", /one SESSION file at a time/);
    expectUsage(await runCtxwin(["report", file, "--trim-at", "2"]), "report", /--trim-at must be a number in \(0, 1\], got "2"/);
    expectUsage(
      await runCtxwin(["report", file, "--trim-at", "0.5", "--trim-to", "0.7"]),
      "report",
      /--trim-to \(0\.7\) must be at most --trim-at \(0\.5\)/,
    );
    expectUsage(await runCtxwin(["report", file, "--window", "lots"]), "report", /--window must be a whole number/);
    const messages = join(dir, "messages.json");
    writeFileSync(messages, JSON.stringify([{ role: "user", content: "hi" }]));
    const notLog = await runCtxwin(["report", messages]);
    expect(notLog.code).toBe(1);
    expect(notLog.stderr).toMatch(/messages\.json: not a session log/);
    const missing = await runCtxwin(["report", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.jsonl: no such file/);
    const unknown = await runCtxwin(["report", file, "--model", "no-such-model-xyz"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown model "no-such-model-xyz".*--window N.*ERR_CTXWIN_UNKNOWN_MODEL/s);
  });

  it("is in the main usage and has its own --help", async () => {
    expect((await runCtxwin(["--help"])).stdout).toMatch(/report SESSION\s+a session's log as an HTML page/);
    const help = await runCtxwin(["report", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: ctxwin report SESSION/);
  });
});

describe("ctxwin inspect --html", () => {
  it("draws one request's view as a page, on stdout or to -o", async () => {
    const result = await runCtxwin(["inspect", file, "--window", "4000", "--html"]);
    expect(result.code).toBe(0);
    const html = result.stdout;
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('id="window-bar"');
    expect(html).toMatch(/<tr><td>tool results<\/td><td class="n">[\d,]+<\/td>/);
    expect(html).toMatch(/<p id="next-trim">(Not due|Due)/);
    const json = JSON.parse((await runCtxwin(["inspect", file, "--window", "4000", "--json"])).stdout) as { total: number };
    expect(html).toContain(`<tr><th>total</th><th class="n">${json.total.toLocaleString("en-US")}</th>`);
    const out = join(dir, "request.html");
    const written = await runCtxwin(["inspect", file, "--window", "4000", "--html", "-o", out]);
    expect(written.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(html);
  });

  it("escapes the conversation's text, and takes --html or --json, not both", async () => {
    const evil = join(dir, "evil.json");
    writeFileSync(evil, JSON.stringify([{ role: "user", content: `<script>alert(1)</script><img src=x onerror=alert(2)>` }]));
    const page = (await runCtxwin(["inspect", evil, "--html"])).stdout;
    expect(page.match(/<script/g)).toBeNull();
    expect(page).not.toMatch(/<img/);
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expectUsage(await runCtxwin(["inspect", evil, "--html", "--json"]), "inspect", /--json and --html: one at a time/);
    expectUsage(await runCtxwin(["inspect", evil, "-o", join(dir, "x.html")]), "inspect", /-o\/--output goes with --html/);
  });
});
