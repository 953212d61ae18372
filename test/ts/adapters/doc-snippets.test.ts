// The ```ts snippets of README.md and of every page of docs/ compile under strict TypeScript against
// the current types of ctxwin (its build, as a user imports it) and of each framework: `ai` 6,
// `langchain` 1, `@openai/agents` here, and `@mastra/core` from the Node 22 compat project. Each
// snippet is its own module; only the free values a snippet stands for (a model, the tools, the
// task) are declared, each with its framework's type. A snippet that did not compile for users
// (the TS2322 of assigning getContextForRequest() to ModelMessage[]) fails here.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const MASTRA = join(ROOT, "test", "compat", "node22", "node_modules", "@mastra", "core", "dist");

/** The free values the snippets use, with the types a user's own would have. */
const GLOBALS = `
declare const model: import("ai").LanguageModel;
declare const system: string;
declare const prompt: string;
declare const task: string;
declare const text: string;
declare const hugeLog: string;
declare const basePrompt: string;
declare const systemPrompt: string;
declare const instructions: string;
declare const messages: import("ctxwin").MessageLike[];
declare const counter: import("ctxwin").TokenCounter;
declare const thread: Parameters<import("ctxwin").ContextManager["needsSummarization"]>[0];
declare const texts: string[];
declare const hugeText: string;
declare const signal: AbortSignal;
declare const context: import("ctxwin").MessageContextManager;
declare const manager: import("ctxwin").MessageContextManager;
declare const userMessage: import("ctxwin").MessageLike;
declare const reply: string;
declare const input: unknown;
declare const store: import("ctxwin/session").SessionStore;
declare const id: string;
declare const url: string;
declare const parsedJson: Record<string, unknown>;
declare const parsedConfig: Record<string, unknown>;
declare const log: Pick<Console, "warn" | "info">;
declare const ui: { warn(message: string): void };
declare const session: { remove(messages: readonly unknown[]): void };
declare const runnable: import("@langchain/core/runnables").Runnable;
declare const agent: import("@openai/agents").Agent;
declare const runner: import("@openai/agents").Runner;
declare module "@ai-sdk/openai" {
  export function openai(modelId: string): Parameters<typeof import("ai").wrapLanguageModel>[0]["model"];
}
`;

/** `tools` as the snippet's framework takes them. */
function toolsFor(code: string): string {
  if (code.includes('from "@mastra/core')) return 'declare const tools: import("@mastra/core/agent").ToolsInput;';
  if (code.includes('from "langchain"')) return 'declare const tools: import("@langchain/core/tools").StructuredToolInterface[];';
  if (code.includes('from "ai"')) return 'declare const tools: import("ai").ToolSet;';
  return 'declare const tools: import("ctxwin").ToolDefinition[];';
}

function snippets(file: string): Array<{ name: string; code: string }> {
  const out: Array<{ name: string; code: string }> = [];
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== "```") end++;
    out.push({ name: `${file}:${start}`, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return out;
}

// Every page of docs/: a block fenced ```ts is a whole module that compiles; one that is
// deliberately a fragment is fenced ```ts fragment (docs/development.md) and is not checked.
const PAGES = readdirSync(join(ROOT, "docs"))
  .filter((file) => file.endsWith(".md"))
  .sort()
  .map((file) => `docs/${file}`);
const all = [...snippets("README.md"), ...PAGES.flatMap(snippets)];

describe("the documentation's TypeScript snippets", () => {
  it("finds the snippets", () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    expect(new Set(all.map((s) => s.name.split(":")[0])).size).toBeGreaterThanOrEqual(12);
    // A fragment is the exception: an API listing, or a request body built from the reader's own converters.
    const fragments = [...PAGES, "README.md"].flatMap((file) => readFileSync(join(ROOT, file), "utf8").match(/^```ts fragment$/gm) ?? []);
    expect(fragments.length).toBeLessThanOrEqual(5);
    expect(all.some((s) => s.code.includes("getContextForRequest({ separateSystem: true })"))).toBe(true);
  });

  it("compile under strict TypeScript, each as a module", () => {
    expect(existsSync(MASTRA), "test/compat/node22 is not installed: run node scripts/bootstrap.mjs").toBe(true);
    const files = new Map<string, string>();
    files.set(join(ROOT, "test", "ts", "adapters", "__snippets__", "globals.d.ts"), GLOBALS);
    all.forEach((s, i) =>
      files.set(join(ROOT, "test", "ts", "adapters", "__snippets__", `snippet-${i}.ts`), `${toolsFor(s.code)}\n${s.code}\nexport {};\n`),
    );
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts"],
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      // @mastra/core needs Node 22: its types are the compat project's.
      baseUrl: ROOT,
      paths: { "@mastra/core/*": [join(MASTRA, "*", "index.d.ts")] },
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      files.has(name) ? ts.createSourceFile(name, files.get(name) as string, language) : getSourceFile(name, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => files.has(name) || fileExists(name);
    const readFile = host.readFile.bind(host);
    host.readFile = (name) => files.get(name) ?? readFile(name);
    const program = ts.createProgram([...files.keys()], options, host);
    const errors = ts.getPreEmitDiagnostics(program).map((d) => {
      const file = d.file?.fileName ?? "";
      const index = /snippet-(\d+)\.ts$/.exec(file)?.[1];
      const where = index === undefined ? file : all[Number(index)]?.name;
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      return `${where} (+${line - 1}): TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(errors).toEqual([]);
  }, 180_000); // one program over every framework's types: about 30 s on a loaded machine
});
