// `ctxwin models` and `--models FILE` as a user runs them: the package's bin in a child process,
// judged by its output and exit code (0 done, 1 failed, 2 bad command line).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextLimits, resolveModel } from "ctxwin";
import { listModels, type ModelEntry } from "ctxwin/models";
import { describe, expect, it } from "vitest";
import { packageRoot, runCtxwin } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "ctxwin-models-"));
const agentRequest = join(packageRoot, "examples", "data", "agent-request.json");

function expectUsage(result: { code: number | null; stdout: string; stderr: string }, why: RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(why);
  expect(result.stderr).toContain("Usage: ctxwin models");
}

/** A catalog file in models.dev's JSON format. */
function catalogFile(name: string, catalog: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof catalog === "string" ? catalog : JSON.stringify(catalog));
  return file;
}

const acme = catalogFile("acme.json", {
  acme: {
    name: "Acme",
    models: { "acme-llm-9b": { name: "Acme LLM 9B", limit: { context: 32768, output: 2048 }, cost: { input: 0.2, output: 0.6 } } },
  },
});

describe("ctxwin models", () => {
  it("lists the whole catalog with windows, output limits and prices", async () => {
    const result = await runCtxwin(["models"]);
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^model\s+window\s+max output\s+input\s+output\s+cache read\s+cache write$/);
    expect(rows).toHaveLength(listModels().length + 2); // header and footer
    expect(result.stdout).toMatch(/^openai\/gpt-4o\s+128,000\s+16,384\s+\$2\.50\s+\$10\s+\$1\.25\s+-$/m);
    expect(result.stdout).toMatch(/^anthropic\/claude-opus-4-7\s+1,000,000\s+128,000\s+\$5\s+\$25\s+\$0\.50\s+\$6\.25$/m);
    expect(rows.at(-1)).toMatch(
      /models from \d+ providers; prices in USD per 1M tokens\. Catalog: models\.dev, through @tokenlens\/models@/,
    );
  });

  it("filters by provider and by text, as JSON too", async () => {
    const bedrock = await runCtxwin(["models", "--provider", "amazon-bedrock", "--json"]);
    expect(bedrock.code).toBe(0);
    const rows = JSON.parse(bedrock.stdout) as ModelEntry[];
    expect(rows).toEqual(listModels({ provider: "amazon-bedrock" }));
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) expect(row.provider).toBe("amazon-bedrock");
    const sonnet = await runCtxwin(["models", "-s", "SONNET-4", "--json"]);
    const found = JSON.parse(sonnet.stdout) as ModelEntry[];
    expect(found.length).toBeGreaterThan(3);
    for (const row of found) expect(`${row.provider}/${row.id} ${row.name}`.toLowerCase()).toContain("sonnet-4");
    const table = await runCtxwin(["models", "--provider", "deepseek"]);
    expect(table.stdout.trim().split("\n")).toHaveLength(listModels({ provider: "deepseek" }).length + 2);
  });

  it("shows how an id resolves, from which entry, and what ctxwin plans with it", async () => {
    const id = "us.anthropic.claude-opus-4-7-v1:0";
    const result = await runCtxwin(["models", id]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/resolves to\s+anthropic\/claude-opus-4-7 \(Claude Opus 4\.7\)/);
    expect(result.stdout).toMatch(/matched by\s+name: /);
    expect(result.stdout).toMatch(/window\s+1,000,000 tokens/);
    expect(result.stdout).toMatch(/max output\s+128,000 tokens/);
    expect(result.stdout).toMatch(/prices\s+\$5 input, \$25 output, \$0\.50 cache read, \$6\.25 cache write per 1M tokens/);
    expect(result.stdout).toMatch(/counted with\s+claude-v4\.7, exact/);
    const json = await runCtxwin(["models", id, "--json"]);
    const parsed = JSON.parse(json.stdout) as { id: string; plan: { effectiveLimit: number }; encoding: string };
    expect(parsed).toMatchObject({ ...resolveModel(id), encoding: "claude-v4.7", exactCounts: true });
    expect(parsed.plan.effectiveLimit).toBe(ContextLimits.forModel(id).effectiveLimit);
    // Where ctxwin reserves less than the model may write, it says so.
    const llama2 = await runCtxwin(["models", "llama2"]);
    expect(llama2.stdout).toMatch(/ctxwin plans\s+819 for the response \(less than the model's 4,096: 20% of the window\)/);
    expect(llama2.stdout).toMatch(/matched by\s+alias: /);
  });

  it("exits 1 for an unknown id, naming the closest known ones, and 2 on bad arguments", async () => {
    const unknown = await runCtxwin(["models", "claude-opus-4-9"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe(
      'ctxwin: unknown model "claude-opus-4-9"; closest known: claude-opus-4-8, claude-opus-4-7, claude-opus-4-6. Register it with --models FILE (models.dev\'s JSON format); ctxwin models --search TEXT lists the known ids.\n',
    );
    // A word that is part of known ids, not an id: the models it names, as --search lists them.
    const word = await runCtxwin(["models", "claude"]);
    expect(word.code).toBe(0);
    expect(word.stderr).toBe(
      'ctxwin: "claude" is no model id; the models whose provider, id or name contains it (ctxwin models --search claude):\n',
    );
    expect(word.stdout).toBe((await runCtxwin(["models", "--search", "claude"])).stdout);
    expect(word.stdout).toMatch(/claude-sonnet-4-5/);
    const none = await runCtxwin(["models", "--search", "no-such-model-anywhere"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no model matches --search no-such-model-anywhere");
    expectUsage(await runCtxwin(["models", "a", "b"]), /at most one model ID/);
    expectUsage(await runCtxwin(["models", "gpt-4o", "--provider", "openai"]), /without an ID/);
    expectUsage(await runCtxwin(["models", "--wide"]), /Unknown option '--wide'/);
  });
});

describe("--models FILE", () => {
  it("adds a models.dev catalog for any command", async () => {
    const resolved = await runCtxwin(["models", "acme-llm-9b", "--models", acme, "--json"]);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({
      provider: "acme",
      id: "acme-llm-9b",
      contextWindow: 32768,
      maxOutput: 2048,
      source: "registered",
    });
    const listed = await runCtxwin(["models", `--models=${acme}`, "--provider", "acme", "--json"]);
    expect((JSON.parse(listed.stdout) as ModelEntry[]).map((m) => m.id)).toEqual(["acme-llm-9b"]);
    const inspected = await runCtxwin(["inspect", agentRequest, "--model", "acme/acme-llm-9b", "--models", acme, "--json"]);
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({ window: 32768, effectiveLimit: 32768 - 2048 - 1000 });
    const counted = await runCtxwin(["count", "-", "--models", acme, "--model", "acme-llm-9b", "--json"], { input: "hello there" });
    expect(counted.code).toBe(0);
    expect(JSON.parse(counted.stdout)).toMatchObject({ model: "acme-llm-9b", total: 2 });
    // Without the file the id is unknown.
    expect((await runCtxwin(["models", "acme-llm-9b"])).code).toBe(1);
  });

  it("stops the command on a file that is missing or not such a catalog", async () => {
    const missing = await runCtxwin(["models", "--models", join(dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`ctxwin: --models ${join(dir, "nope.json")}: no such file\n`);
    const bad = catalogFile("bad.json", { acme: { models: { m: { limit: { context: "8k" } } } } });
    const invalid = await runCtxwin(["count", "-", "--models", bad], { input: "x" });
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toBe("");
    expect(invalid.stderr).toBe(
      `ctxwin: --models ${bad}: catalog["acme"].models["m"].limit.context must be a number, got a string (ERR_CTXWIN_INVALID_ARGUMENT)\n`,
    );
    const notJson = await runCtxwin(["models", "--models", catalogFile("text.json", "not json")]);
    expect(notJson.stderr).toContain("catalog must be JSON in models.dev's format: it does not parse");
    const noFile = await runCtxwin(["compact", agentRequest, "--target", "100", "--models"]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/--models needs a FILE/);
  });
});

describe("an unknown --model", () => {
  it("stops the commands that plan with a window, naming the closest known ids, unless the window is given", async () => {
    for (const args of [
      ["inspect", agentRequest, "--model", "gpt-5.9-ultra"],
      ["chat", "--offline", "--model", "gpt-5.9-ultra"],
    ]) {
      const stopped = await runCtxwin(args, { input: "hello\n/exit\n" });
      expect(stopped.code).toBe(1);
      expect(stopped.stdout).toBe("");
      expect(stopped.stderr).toMatch(
        /^ctxwin: --model: unknown model "gpt-5\.9-ultra" \(closest known: gpt-5[^)]*\); add it with --models FILE .* or give its window with --window N .*\(ERR_CTXWIN_UNKNOWN_MODEL\)\n$/,
      );
    }
    const windowed = await runCtxwin(["inspect", agentRequest, "--model", "gpt-5.9-ultra", "--window", "20000", "--json"]);
    expect(windowed.code).toBe(0);
    expect(JSON.parse(windowed.stdout)).toMatchObject({ model: "gpt-5.9-ultra", window: 20000, encoding: "o200k_base", exact: true });
    const chat = await runCtxwin(["chat", "--offline", "--model", "gpt-5.9-ultra", "--window", "4000"], { input: "/stats\n/exit\n" });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("window 4,000 tokens");
  });

  it("is counted with o200k_base and one warning where no window is planned", async () => {
    const counted = await runCtxwin(["count", "-", "--model", "acme-llm-9b", "--json"], { input: "hello there" });
    expect(counted.code).toBe(0);
    expect(JSON.parse(counted.stdout)).toMatchObject({ model: "acme-llm-9b", encoding: "o200k_base", exact: false, total: 2 });
    expect(counted.stderr.match(/unknown model "acme-llm-9b"/g)).toHaveLength(1);
    expect(counted.stderr).toMatch(/counting with o200k_base, an approximation/);
    const compacted = await runCtxwin(["compact", agentRequest, "--model", "acme-llm-9b", "--target", "3000", "--json"]);
    expect(compacted.code).toBe(0);
    expect(JSON.parse(compacted.stdout)).toMatchObject({ model: "acme-llm-9b", target: 3000 });
  });

  it("leaves the chat on its model when /model names an unknown id", async () => {
    const chat = await runCtxwin(["chat", "--offline", "--model", "gpt-4o-mini"], { input: "/model gpt-5.9-ultra\n/model\n/exit\n" });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toMatch(/Model not switched: --model: unknown model "gpt-5\.9-ultra"/);
    expect(chat.stdout).toMatch(/\ngpt-4o-mini: /);
  });
});
