// The agent-tools loop (agent-loop.ts) in an AI SDK generateText tool loop with contextMiddleware
// or contextPrepareStep and contextTools: the same suite runs with `ai` 6
// (ai-sdk-agent-tools.test.ts) and `ai` 7 (test/compat/node22/, on Node 22 or later), each with
// its major's mock model.
import { describe, expect, it } from "vitest";
import { getCounter } from "ctxwin";
import { contextMiddleware, contextPrepareStep, contextTools } from "ctxwin/ai-sdk";
import { definitions, type AiSdk, type CallOptions } from "../adapters/ai-sdk-suite.js";
import { MODEL, SYSTEM, TASK, toolOutput } from "../support/tool-loop.js";
import { COMPACTION, LIMITS, NOTICES, RESERVED_OUTPUT, STEPS, Script, type Move } from "./agent-loop.js";

type Part = { type: string; text?: string; toolCallId?: string; output?: { type: string; value: unknown } };

const counter = getCounter(MODEL);

function result(move: Move) {
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 20, text: 20, reasoning: undefined },
  };
  if (move.kind === "final")
    return {
      content: [{ type: "text" as const, text: move.text }],
      finishReason: { unified: "stop" as const, raw: undefined },
      usage,
      warnings: [],
    };
  const [toolName, input] =
    move.kind === "read"
      ? ["read_file", { path: `src/module${move.step}.ts`, step: move.step }]
      : move.kind === "status"
        ? ["context_status", {}]
        : ["compact_context", move.input];
  return {
    content: [{ type: "tool-call" as const, toolCallId: move.callId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  };
}

export function runAiSdkAgentToolsSuite(sdk: AiSdk): void {
  describe(`context_status and compact_context in an AI SDK ${sdk.major} tool loop`, () => {
    // contextMiddleware sees the provider's prompt; contextPrepareStep the step's messages, with the
    // system prompt and the tools given to it (the context tools added to the same tool set).
    for (const hook of ["middleware", "prepareStep"] as const) {
      it(`runs 60 steps through ${hook}: the asked compaction happens at the next request and lasts, keeps what keep named, and each notice reaches the model once`, async () => {
        const script = new Script();
        const options = { model: MODEL, limits: LIMITS, compaction: COMPACTION, notices: NOTICES, onNotice: script.onNotice };
        const model = new sdk.MockLanguageModel({
          modelId: MODEL,
          doGenerate: async (call: CallOptions) => {
            const prompt = call.prompt as Array<{ role: string; content: unknown }>;
            const texts: string[] = [];
            const results = new Map<string, string>();
            for (const message of prompt) {
              if (typeof message.content === "string") texts.push(message.content);
              for (const part of (Array.isArray(message.content) ? message.content : []) as Part[]) {
                if (part.type === "text") texts.push(part.text as string);
                if (part.type === "tool-result") {
                  const value = String(part.output?.value);
                  results.set(part.toolCallId as string, value);
                  texts.push(value);
                }
              }
            }
            const tokens = counter.countMessages(prompt as never, { tools: definitions(call) });
            return result(script.next({ tokens, texts, results }));
          },
        });
        const tools: Record<string, unknown> = {
          read_file: sdk.tool({
            description: "Read a file of the repository",
            inputSchema: sdk.jsonSchema({
              type: "object",
              properties: { path: { type: "string" }, step: { type: "number" } },
              required: ["path", "step"],
            }),
            execute: async ({ step }: { step: number }) => toolOutput(step),
          }),
        };
        const common = { system: SYSTEM, prompt: TASK, tools, stopWhen: sdk.stepCountIs(STEPS + 2), maxOutputTokens: RESERVED_OUTPUT };
        if (hook === "middleware") {
          const middleware = contextMiddleware(options);
          Object.assign(tools, contextTools(middleware));
          await sdk.generateText({ ...common, model: sdk.wrapLanguageModel({ model: model as never, middleware: middleware as never }) });
        } else {
          const prepareStep = contextPrepareStep({ ...options, system: SYSTEM, tools: tools as never, maxOutputTokens: RESERVED_OUTPUT });
          Object.assign(tools, contextTools(prepareStep));
          await sdk.generateText({ ...common, model, prepareStep });
        }
        script.finish();
        expect(() => contextTools({})).toThrow(expect.objectContaining({ name: "TypeError", code: "ERR_CTXWIN_INVALID_ARGUMENT" }));
      }, 120_000);
    }
  });
}
