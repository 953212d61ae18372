// The agent's context tools as AI SDK tools: `tools: { ...tools, ...contextTools(middleware) }`
// lets the model read its context's state (context_status) and queue a compaction
// (compact_context) that runs before its next call.
import type { Tool } from "ai";
import {
  COMPACT_CONTEXT_TOOL,
  CONTEXT_STATUS_TOOL,
  compactContextInputSchema,
  contextStatusInputSchema,
  contextToolTarget,
  runContextTool,
  type CompactionRequest,
} from "../../context/agent-tools/context-tools.js";
import { AI_SDK_PEER } from "../../runtime/require-peer.js";
import { loadPeer } from "../../runtime/load-peer.js";

const ai = loadPeer<typeof import("ai")>("ai", "ai-sdk", AI_SDK_PEER);

/** The AI SDK's two context tools, keyed by their names, over a middleware (contextMiddleware), a contextPrepareStep, its fitter, or a MessageContextManager. */
export function contextTools(source: unknown): {
  context_status: Tool<Record<string, never>, string>;
  compact_context: Tool<CompactionRequest, string>;
} {
  const target = contextToolTarget(source);
  return {
    context_status: ai.tool<Record<string, never>, string>({
      description: CONTEXT_STATUS_TOOL.description,
      inputSchema: ai.jsonSchema<Record<string, never>>(structuredClone(contextStatusInputSchema) as never),
      execute: (input) => runContextTool(target, CONTEXT_STATUS_TOOL.name, input),
    }),
    compact_context: ai.tool<CompactionRequest, string>({
      description: COMPACT_CONTEXT_TOOL.description,
      inputSchema: ai.jsonSchema<CompactionRequest>(structuredClone(compactContextInputSchema) as never),
      execute: (input) => runContextTool(target, COMPACT_CONTEXT_TOOL.name, input),
    }),
  };
}
