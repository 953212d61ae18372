// The agent's context tools as LangChain tools: `createAgent({ tools: [...tools, ...contextTools(middleware)] })`
// lets the model read its context's state (context_status) and queue a compaction
// (compact_context) that runs before its next call.
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { CONTEXT_TOOLS, contextToolTarget, runContextTool } from "../../context/agent-tools/context-tools.js";
import { loadPeer } from "../../runtime/load-peer.js";
import { LANGCHAIN_CORE_PEER } from "../../runtime/require-peer.js";

const { tool } = loadPeer<typeof import("@langchain/core/tools")>("@langchain/core/tools", "langchain", LANGCHAIN_CORE_PEER);

/** LangChain tools named "context_status" and "compact_context", over a middleware (contextMiddleware), its fitter, or a MessageContextManager. */
export function contextTools(source: unknown): DynamicStructuredTool[] {
  const target = contextToolTarget(source);
  return CONTEXT_TOOLS.map(
    ({ schema, ...definition }) =>
      tool((input: unknown) => runContextTool(target, definition.name, input), {
        name: definition.name,
        description: definition.description,
        schema: structuredClone(schema) as unknown as Record<string, unknown>,
      }) as unknown as DynamicStructuredTool,
  );
}
