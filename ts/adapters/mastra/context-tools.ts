// The agent's context tools as Mastra tools: `new Agent({ tools: { ...tools, ...(await contextTools(processor)) } })`
// lets the model read its context's state (context_status) and queue a compaction
// (compact_context) that runs before its next call. Made by Mastra's createTool with the tools'
// JSON schemas, as recallTool is; async because @mastra/core/tools is imported on first use.
import {
  COMPACT_CONTEXT_TOOL,
  CONTEXT_STATUS_TOOL,
  compactContextInputSchema,
  contextStatusInputSchema,
  contextToolTarget,
  runContextTool,
} from "../../context/agent-tools/context-tools.js";
import { requirePeer, type PeerPackage } from "../../runtime/require-peer.js";
import type { MastraValidationError } from "./recall-tool.js";

const MASTRA_PEER: PeerPackage = { what: "`@mastra/core` (version 1)", install: "@mastra/core@^1", code: "ERR_CTXWIN_MASTRA_MISSING" };
const MASTRA_TOOLS: string = "@mastra/core/tools";

/** A Mastra tool (what createTool makes), typed by the members an agent's `tools` needs. */
export interface ContextMastraTool {
  readonly id: string;
  readonly description: string;
  execute: (input: unknown, context?: unknown) => Promise<string | MastraValidationError>;
}

type CreateTool = (options: {
  id: string;
  description: string;
  inputSchema: object;
  execute: (input: unknown) => Promise<string>;
}) => ContextMastraTool;

/** Mastra tools with ids "context_status" and "compact_context", over a ContextProcessor, its fitter, or a MessageContextManager. */
export async function contextTools(source: unknown): Promise<{ context_status: ContextMastraTool; compact_context: ContextMastraTool }> {
  const target = contextToolTarget(source);
  const { createTool } = (await requirePeer(() => import(MASTRA_TOOLS), "mastra", MASTRA_PEER)) as { createTool: CreateTool };
  const make = (definition: { name: string; description: string }, schema: object) =>
    createTool({
      id: definition.name,
      description: definition.description,
      inputSchema: structuredClone(schema),
      execute: (input) => runContextTool(target, definition.name, input),
    });
  return {
    context_status: make(CONTEXT_STATUS_TOOL, contextStatusInputSchema),
    compact_context: make(COMPACT_CONTEXT_TOOL, compactContextInputSchema),
  };
}
