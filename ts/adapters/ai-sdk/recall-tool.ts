// The recall tool as an AI SDK tool: `tools: { recall: recallTool(recall) }` lets the model read
// back what compaction cleared, cut or summarized, by the id the placeholder names.
import type { Tool } from "ai";
import type { Recall } from "../../recall/recall.js";
import { RECALL_TOOL, requireRecall, recallInputSchema, type RecallInput } from "../../recall/recall-tool.js";
import { AI_SDK_PEER } from "../../runtime/require-peer.js";
import { loadPeer } from "../../runtime/load-peer.js";

// Without `ai` the subpath fails with its coded error, as its index does.
const ai = loadPeer<typeof import("ai")>("ai", "ai-sdk", AI_SDK_PEER);

/** An AI SDK tool that answers with `recall.answer(input)`: the original, a range, the matching lines, or a coded notice. */
export function recallTool(recall: Recall): Tool<RecallInput, string> {
  requireRecall(recall);
  return ai.tool<RecallInput, string>({
    description: RECALL_TOOL.description,
    inputSchema: ai.jsonSchema<RecallInput>(recallInputSchema as never),
    execute: (input) => recall.answer(input),
  });
}
