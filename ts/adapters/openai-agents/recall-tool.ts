// The recall tool as an OpenAI Agents SDK tool: `new Agent({ tools: [await recallTool(recall)] })`
// lets the model read back what compaction cleared, cut or summarized, by the id the placeholder
// names. Async because this subpath needs nothing of the SDK until a tool is made: the SDK is
// imported here, on first use.
import type { FunctionTool } from "@openai/agents";
import type { Recall } from "../../recall/recall.js";
import { RECALL_TOOL, requireRecall, recallInputSchema } from "../../recall/recall-tool.js";
import { requirePeer } from "../../runtime/require-peer.js";

/** An Agents SDK function tool named "recall" that answers with `recall.answer(input)`. */
export async function recallTool(recall: Recall): Promise<FunctionTool> {
  requireRecall(recall);
  const agents = await requirePeer(() => import("@openai/agents"), "openai-agents", {
    what: "`@openai/agents`",
    install: "@openai/agents",
    code: "ERR_CTXWIN_OPENAI_AGENTS_MISSING",
  });
  return agents.tool({
    name: RECALL_TOOL.name,
    description: RECALL_TOOL.description,
    // Optional fields are not allowed in strict schemas: the SDK passes the JSON schema as it is.
    parameters: recallInputSchema as never,
    strict: false,
    execute: (input: unknown) => recall.answer(input),
  }) as unknown as FunctionTool;
}
