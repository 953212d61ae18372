// The agent's context tools as OpenAI Agents SDK tools: `new Agent({ tools: [...tools, ...(await contextTools(filter))] })`
// lets the model read its context's state (context_status) and queue a compaction
// (compact_context) that runs before its next call. Async, as recallTool: the SDK is imported on first use.
import type { FunctionTool } from "@openai/agents";
import { CONTEXT_TOOLS, contextToolTarget, runContextTool } from "../../context/agent-tools/context-tools.js";
import { requirePeer } from "../../runtime/require-peer.js";

/** Agents SDK function tools named "context_status" and "compact_context", over a contextInputFilter, a ContextSession, its fitter, or a MessageContextManager. */
export async function contextTools(source: unknown): Promise<FunctionTool[]> {
  const target = contextToolTarget(source);
  const agents = await requirePeer(() => import("@openai/agents"), "openai-agents", {
    what: "`@openai/agents`",
    install: "@openai/agents",
    code: "ERR_CTXWIN_OPENAI_AGENTS_MISSING",
  });
  return CONTEXT_TOOLS.map(
    ({ schema, ...definition }) =>
      agents.tool({
        name: definition.name,
        description: definition.description,
        // Optional fields are not allowed in strict schemas: the SDK passes the JSON schema as it is.
        parameters: structuredClone(schema) as never,
        strict: false,
        execute: (input: unknown) => runContextTool(target, definition.name, input),
      }) as unknown as FunctionTool,
  );
}
