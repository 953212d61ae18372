// The recall tool as a LangChain tool: `createAgent({ tools: [recallTool(recall)] })` lets the
// model read back what compaction cleared, cut or summarized, by the id the placeholder names.
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { Recall } from "../../recall/recall.js";
import { RECALL_TOOL, requireRecall, recallInputSchema, type RecallInput } from "../../recall/recall-tool.js";
import { loadPeer } from "../../runtime/load-peer.js";
import { LANGCHAIN_CORE_PEER } from "../../runtime/require-peer.js";

// Without LangChain the subpath fails with its coded error, as its index does.
const { tool } = loadPeer<typeof import("@langchain/core/tools")>("@langchain/core/tools", "langchain", LANGCHAIN_CORE_PEER);

/** A LangChain tool named "recall" that answers with `recall.answer(input)`. */
export function recallTool(recall: Recall): DynamicStructuredTool {
  requireRecall(recall);
  return tool((input: RecallInput) => recall.answer(input), {
    name: RECALL_TOOL.name,
    description: RECALL_TOOL.description,
    schema: recallInputSchema as unknown as Record<string, unknown>,
  }) as unknown as DynamicStructuredTool;
}
