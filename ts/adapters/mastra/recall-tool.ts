// The recall tool as a Mastra tool: `new Agent({ tools: { ...tools, recall: await recallTool(recall) } })`
// lets the model read back what compaction cleared, cut or summarized, by the id the placeholder
// names. Made by Mastra's own createTool, with the recall input's JSON schema as its inputSchema
// (Mastra takes a JSON schema beside Zod and Standard Schemas and validates the model's arguments
// against it), so neither ctxwin nor its user needs Zod for it. Async because this subpath needs
// nothing of Mastra until a tool is made: `@mastra/core/tools` is imported here, on first use.
import type { Recall } from "../../recall/recall.js";
import { RECALL_TOOL, requireRecall, recallInputSchema, type RecallInput } from "../../recall/recall-tool.js";
import { requirePeer, type PeerPackage } from "../../runtime/require-peer.js";

const MASTRA_PEER: PeerPackage = { what: "`@mastra/core` (version 1)", install: "@mastra/core@^1", code: "ERR_CTXWIN_MASTRA_MISSING" };

// A specifier TypeScript does not resolve: @mastra/core (Node 22 or later) is not installed where
// ctxwin is built, and the tool's type below is written by shape instead.
const MASTRA_TOOLS: string = "@mastra/core/tools";

/** What Mastra's tool answers, without calling recall, for arguments the input schema rejects. */
export interface MastraValidationError {
  error: true;
  message: string;
  validationErrors: unknown;
}

/**
 * The tool recallTool returns: a Mastra `Tool` (what createTool makes), typed by the members an
 * agent's `tools` needs, so that it goes into `tools` as any createTool tool does.
 */
export interface RecallMastraTool {
  readonly id: typeof RECALL_TOOL.name;
  readonly description: string;
  /** Mastra's execute: the arguments checked against the input schema, then `recall.answer(input)`. */
  execute: (input: RecallInput, context?: unknown) => Promise<string | MastraValidationError>;
}

type CreateTool = (options: {
  id: string;
  description: string;
  inputSchema: object;
  execute: (input: RecallInput) => Promise<string>;
}) => RecallMastraTool;

/** A Mastra tool with id "recall" that answers with `recall.answer(input)`. */
export async function recallTool(recall: Recall): Promise<RecallMastraTool> {
  requireRecall(recall);
  const { createTool } = (await requirePeer(() => import(MASTRA_TOOLS), "mastra", MASTRA_PEER)) as { createTool: CreateTool };
  return createTool({
    id: RECALL_TOOL.name,
    description: RECALL_TOOL.description,
    // A copy: Mastra compiles and may annotate the schema it is given; the other adapters share this one.
    inputSchema: structuredClone(recallInputSchema),
    execute: (input) => recall.answer(input),
  });
}
