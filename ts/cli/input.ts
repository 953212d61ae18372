// Reading what the commands are given: files or standard input, and conversations in the shapes
// agent developers have at hand (a JSON array of messages, a request body, a ctxwin export or
// session file).
import { readFile } from "node:fs/promises";
import { isRecord } from "../tokens/message-shape.js";
import type { MessageLike, ToolDefinition } from "../tokens/token-counter.js";
import type { Io } from "./terminal.js";

/** A file the command could not use: exit code 1 with this message. */
export class InputError extends Error {
  override name = "InputError";
}

export async function readText(path: string, io: Io): Promise<string> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === "ENOENT" ? `${path}: no such file` : code === "EISDIR" ? `${path}: is a directory` : `${path}: ${(error as Error).message}`);
  }
}

/** A conversation as a request would carry it. */
export interface Conversation {
  messages: MessageLike[];
  tools: ToolDefinition[];
  /** A system prompt given outside the messages (Anthropic's `system`, a session's system prompt). */
  system?: string;
  /** What the file was, for the reader: "messages", "request body", ... */
  format: string;
  metadata?: Record<string, unknown>;
}

/** Anthropic tool definitions use input_schema where OpenAI's use parameters. */
function toolDefinition(tool: unknown, index: number, path: string): ToolDefinition {
  if (!isRecord(tool)) throw new InputError(`${path}: tools[${index}] is not an object`);
  if (isRecord(tool.function) || typeof tool.name !== "string") return tool as ToolDefinition;
  const { input_schema, inputSchema, parameters, ...rest } = tool as Record<string, unknown>;
  return { ...rest, name: tool.name, parameters: (parameters ?? input_schema ?? inputSchema) as ToolDefinition["parameters"] };
}

function systemText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((b) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  return undefined;
}

function checkMessages(messages: unknown[], path: string, where: string): MessageLike[] {
  messages.forEach((m, i) => {
    if (!isRecord(m) || typeof m.role !== "string") throw new InputError(`${path}: ${where}[${i}] is not a message (an object with a string "role")`);
  });
  return messages as MessageLike[];
}

/** Parses a conversation file: see the inspect command's help for the shapes. */
export function parseConversation(text: string, path: string): Conversation {
  const trimmed = text.trim();
  if (trimmed === "") throw new InputError(`${path}: empty`);
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch (error) {
    // Not one JSON value: a JSON Lines file of messages (one per line).
    const lines = trimmed.split("\n").filter((l) => l.trim() !== "");
    if (lines.length > 1) {
      try {
        return { messages: checkMessages(lines.map((l) => JSON.parse(l) as unknown), path, "line"), tools: [], format: "JSON lines of messages" };
      } catch (inner) {
        if (inner instanceof InputError) throw inner;
      }
    }
    throw new InputError(`${path}: not JSON (${(error as Error).message})`);
  }
  if (Array.isArray(data)) return { messages: checkMessages(data, path, "messages"), tools: [], format: "messages" };
  if (isRecord(data) && Array.isArray(data.messages)) {
    const tools = Array.isArray(data.tools) ? data.tools.map((t, i) => toolDefinition(t, i, path)) : [];
    const system = systemText(data.system);
    return {
      messages: checkMessages(data.messages, path, "messages"),
      tools,
      ...(system === undefined ? {} : { system }),
      format: "request body",
      ...(isRecord(data.metadata) ? { metadata: data.metadata } : {}),
    };
  }
  throw new InputError(`${path}: not a conversation: expected a JSON array of messages, an object with "messages", a ctxwin export or a session file`);
}
