// `ctxwin chat` against a model: an OpenAI-compatible server (what OpenAI, Ollama, vLLM and LM
// Studio speak) run by the test on localhost, reached through OPENAI_BASE_URL and the AI SDK
// provider. Standard input is a pipe here: no prompt colours, lines read to the end.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCounter } from "ctxwin";
import { offlineEnv, runCtxwin } from "../support/cli.js";

interface ChatRequest {
  model: string;
  stream: boolean;
  messages: Array<{ role: string; content: string | Array<{ type: string; text: string }> }>;
}

const requests: ChatRequest[] = [];
let fail = false;
/** What the server reports as prompt_tokens for a request of n messages. */
const usual = (n: number) => 40 + n;
let report = usual;
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = "";
  req.on("data", (d: Buffer) => (body += d.toString("utf8")));
  req.on("end", () => {
    if (req.url !== "/v1/chat/completions" || req.headers.authorization !== "Bearer test-key") {
      res.writeHead(404).end();
      return;
    }
    const request = JSON.parse(body) as ChatRequest;
    requests.push(request);
    if (fail) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "the model is overloaded" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: object, finish: string | null, usage?: object) =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: request.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
    const n = request.messages.length;
    res.write(chunk({ role: "assistant", content: "I got " }, null));
    res.write(chunk({ content: `${n} messages.` }, null));
    res.write(chunk({}, "stop", { prompt_tokens: report(n), completion_tokens: 4, total_tokens: report(n) + 4 }));
    res.end("data: [DONE]\n\n");
  });
});

let baseURL = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const counter = getCounter("gpt-4o-mini");
const textOf = (m: ChatRequest["messages"][number]) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join(""));

describe("ctxwin chat with an OpenAI-compatible endpoint", () => {
  it("streams the model's replies and sends it the whole context each turn", async () => {
    requests.length = 0;
    fail = false;
    const env = offlineEnv({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "test-key", NO_COLOR: "" });
    const result = await runCtxwin(["chat", "--model", "gpt-4o-mini", "--system", "Be brief."], {
      env,
      input: "Hello there\nSecond question\n/stats\n",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Model: gpt-4o-mini via ${baseURL}`);
    expect(result.stdout).toContain("assistant> I got 2 messages.");
    expect(result.stdout).toContain("assistant> I got 4 messages.");
    expect(result.stdout).toMatch(/Last request the provider reported 4[48] input tokens; ctxwin counted \d+/);
    expect(result.stdout).not.toContain("\x1b[");
    expect(requests).toHaveLength(2);
    expect(requests[1]?.model).toBe("gpt-4o-mini");
    expect(requests[1]?.stream).toBe(true);
    expect(requests[1]?.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ["system", "Be brief."],
      ["user", "Hello there"],
      ["assistant", "I got 2 messages."],
      ["user", "Second question"],
    ]);
  });

  it("anchors the context total on the provider's reported usage: /stats and the warnings use it", async () => {
    requests.length = 0;
    fail = false;
    report = usual;
    const env = offlineEnv({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "test-key", NO_COLOR: "" });
    const result = await runCtxwin(["chat", "--model", "gpt-4o-mini", "--system", "Be brief."], {
      env,
      input: "Hello there\nSecond question\n/stats\n",
    });
    expect(result.code).toBe(0);
    const reported = 44; // 40 + the 4 messages of the second request
    const counted = Number(
      /ctxwin counted ([\d,]+); the context total is the provider's figure plus what was added since/
        .exec(result.stdout)?.[1]
        ?.replace(/,/g, ""),
    );
    const sent = (requests[1]?.messages ?? []).map((m) => ({ role: m.role, content: textOf(m) }));
    expect(counted).toBe(counter.countMessages(sent));
    // What was added since the request: the reply, scaled by the reported-to-counted ratio (never down).
    const added = counter.countMessages([...sent, { role: "assistant", content: "I got 4 messages." }]) - counted;
    const scale = Math.max(1, reported / counted);
    const expected = reported + (scale === 1 ? added : Math.ceil(added * scale));
    expect(result.stdout).toContain(`Context ${expected} of `);
    expect(expected).not.toBe(counter.countMessages([...sent, { role: "assistant", content: "I got 4 messages." }]));

    // A provider that counts 25% more than ctxwin: its figure, not the local count (66%), raises the 80% warning.
    const long = Array.from({ length: 350 }, (_, i) => `w${i % 10}`).join(" ");
    const local = counter.countMessages([{ role: "user", content: long }]);
    expect(local).toBeGreaterThan(650);
    expect(local).toBeLessThan(780);
    report = () => 900;
    try {
      const warned = await runCtxwin(["chat", "--model", "gpt-4o-mini", "--window", "1100"], { env, input: `${long}\n/stats\n` });
      expect(warned.code).toBe(0);
      expect(warned.stdout).toContain("Context at 80% capacity.");
      expect(warned.stdout).not.toContain("Context at 90% capacity.");
      expect(warned.stdout).toMatch(/Context 9\d\d of 1,100 tokens/);
    } finally {
      report = usual;
    }
  });

  it("keeps the chat's start time through /save and --resume (in the session's metadata)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-chat-start-"));
    const since = (out: string) => [...out.matchAll(/\(ctxwin chat, since ([^,]+), /g)].map((m) => m[1]);
    // Time passes between the start and /save, so the saved log begins later than the chat did.
    const first = await runCtxwin(["chat", "--offline", "--store", "sessions"], {
      input: ["Hello\n/export a.json\n", "/save\n/stats\n/export b.json\n"],
      pauseMs: 30,
      cwd: dir,
    });
    expect(first.code).toBe(0);
    const a = JSON.parse(readFileSync(join(dir, "a.json"), "utf8")) as { metadata: Record<string, string> };
    const b = JSON.parse(readFileSync(join(dir, "b.json"), "utf8")) as { metadata: Record<string, string> };
    const started = a.metadata.created_at as string;
    expect(a.metadata.started_at).toBe(started);
    expect(Date.parse(b.metadata.created_at as string)).toBeGreaterThanOrEqual(Date.parse(started) + 30); // the log's start: the save
    expect(b.metadata.started_at).toBe(started);
    expect(since(first.stdout)).toEqual([started]);
    const id = a.metadata.session_id as string;
    const resumed = await runCtxwin(["chat", "--offline", "--store", "sessions", "--resume", id], {
      input: "/stats\n/export c.json\n",
      cwd: dir,
    });
    expect(resumed.code).toBe(0);
    expect(since(resumed.stdout)).toEqual([started]);
    expect((JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as { metadata: Record<string, string> }).metadata.started_at).toBe(
      started,
    );
  });

  it("reports a model error and leaves the context as it was", async () => {
    requests.length = 0;
    fail = true;
    const env = offlineEnv({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "test-key" });
    const result = await runCtxwin(["chat"], { env, input: "Hello\n/stats\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Model error: .*overloaded/);
    expect(result.stdout).toContain("Messages 0: 0 user, 0 assistant");
  });

  it("uses the offline assistant, and says so, when no key is set", async () => {
    const result = await runCtxwin(["chat"], { input: "Hello\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Offline assistant: it is not a language model.");
    expect(result.stdout).toContain("(no OPENAI_API_KEY, OPENAI_BASE_URL or ANTHROPIC_API_KEY is set.)");
    expect(result.stdout).toContain("assistant> (offline) This is the start of the conversation as I receive it.");
  });

  it("compacts on /compact, recounts on /model, and answers bad commands without changing anything", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-chat-pipe-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ format: "ctxwin-context", version: 1 }));
    const notes = Array.from({ length: 14 }, (_, i) => `Note ${i + 1}: module ${i + 1} lives in src/module${i + 1}.ts.`);
    const input = [
      ...notes,
      "/stats",
      "/compact",
      "/stats",
      "/model gpt-4",
      "/stats",
      "/compact abc",
      "/export",
      "/import nope.json",
      "/import bad.json",
      "/stats",
      "/resume",
    ].join("\n");
    const result = await runCtxwin(["chat", "--offline", "--window", "3000"], { input, cwd: dir });
    expect(result.code).toBe(0);
    const stats = [...result.stdout.matchAll(/Context ([\d,]+) of 3,000 tokens/g)].map((m) => Number((m[1] as string).replace(/,/g, "")));
    expect(stats).toHaveLength(4);
    const [before, compacted, switched, after] = stats as [number, number, number, number];
    expect(compacted).toBeLessThanOrEqual(Math.floor(before / 2));
    expect(result.stdout).toMatch(/Compacted offline: [\d,]+ -> [\d,]+ tokens \(summarize/);
    expect(result.stdout).toContain("1 system (prompt or summary)"); // the summary the compaction wrote
    expect(result.stdout).toContain("Model gpt-4: offline assistant");
    expect(result.stdout).toContain("counted with cl100k_base, exact. The context is");
    expect(switched).toBeGreaterThan(0);
    expect(after).toBe(switched); // the failed commands changed nothing
    expect(result.stdout).toContain('/compact takes a token count, got "abc"');
    expect(result.stdout).toContain("/export needs a FILE");
    expect(result.stdout).toContain("Cannot read nope.json");
    expect(result.stdout).toMatch(/Not imported: invalid context export: /);
    expect(result.stdout).toContain("Unknown command /resume.");
  });

  it("rejects bad arguments with exit code 2", async () => {
    for (const [args, why] of [
      [["chat", "--provider", "mistral"], /--provider must be openai or anthropic/],
      [["chat", "--offline", "--provider", "openai"], /contradict/],
      [["chat", "--window", "10"], /--window must be a whole number >= 64/],
      [["chat", "extra"], /unexpected argument "extra"/],
    ] as const) {
      const result = await runCtxwin([...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(why);
      expect(result.stderr).toContain("Usage: ctxwin chat");
    }
  });
});
