// Reading what the commands are given: files or standard input, and conversations in the shapes
// agent developers have at hand (a JSON array of messages, a request body, a ctxwin export or
// session file).
import { readFile } from "node:fs/promises";
import { omissionMarker } from "../messages/omission-marker.js";
import { replay, type ContextEntry } from "../session/context-log.js";
import { EXPORT_FORMAT, safeParseExport } from "../session/export.js";
import { isSessionLogText, recordsOfText } from "../session/file-log.js";
import type { SessionEntry } from "../session/store.js";
import { isRecord } from "../messages/message-shape.js";
import type { MessageLike, ToolDefinition } from "../messages/types.js";
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

/** A ctxwin export (a chat's /export): the turns as the model saw them, the system prompt apart. */
function fromExport(data: unknown, path: string): Conversation {
  const parsed = safeParseExport(data);
  if (!parsed.success) throw new InputError(`${path}: ${parsed.error.message}`);
  const { metadata, system_prompt: system, turns } = parsed.data;
  // The `ctxwin` key marks what ctxwin wrote (summaries, the omission marker); the model sees the message.
  const messages = turns.map(({ ctxwin: _annotation, ...message }) => message as MessageLike);
  return { messages, tools: [], ...(system === null ? {} : { system }), format: `ctxwin export of session ${metadata.session_id}`, metadata };
}

/** A session file of FileSessionStore (JSONL records): the view its log replays to. */
function fromSessionLog(records: Array<{ entry: SessionEntry }>): Conversation {
  const view = replay(records.map((r) => r.entry as ContextEntry));
  const messages = view.entries.map((e) => e.message);
  if (view.marker) messages.splice(view.marker.index, 0, omissionMarker(view.marker.omitted, view.marker.role));
  const system = view.systemPrompt ?? undefined;
  return {
    messages,
    tools: [],
    ...(system === undefined ? {} : { system }),
    format: `session log, ${records.length} records`,
    ...(view.metadata ? { metadata: view.metadata } : {}),
  };
}

/** A FileSessionStore file, read by the store's own rule (fenced and torn lines left out). */
function sessionLog(text: string, path: string): Conversation {
  try {
    return fromSessionLog(recordsOfText(text, path));
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

/** Parses the lines of a JSON Lines file; a torn last line (a write under way, a crash) is left out. */
function jsonLines(text: string, path: string): unknown[] {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const values: unknown[] = [];
  lines.forEach((line, i) => {
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      if (i < lines.length - 1 || !text.endsWith(line)) throw new InputError(`${path}: line ${i + 1} is not JSON (${(error as Error).message})`);
    }
  });
  return values;
}

/** Parses a conversation file: see the inspect command's help for the shapes. */
export function parseConversation(text: string, path: string): Conversation {
  const trimmed = text.trim();
  if (trimmed === "") throw new InputError(`${path}: empty`);
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch (error) {
    // Not one JSON value: JSON Lines, either a session's log or one message per line.
    if (!trimmed.includes("\n")) throw new InputError(`${path}: not JSON (${(error as Error).message})`);
    if (isSessionLogText(text)) return sessionLog(text, path);
    const values = jsonLines(text, path);
    return { messages: checkMessages(values, path, "line"), tools: [], format: "JSON lines of messages" };
  }
  if (Array.isArray(data)) return { messages: checkMessages(data, path, "messages"), tools: [], format: "messages" };
  if (isRecord(data) && data.format === EXPORT_FORMAT) return fromExport(data, path);
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
  if (isRecord(data) && typeof data.seq === "number" && isSessionLogText(trimmed)) return sessionLog(text, path);
  throw new InputError(`${path}: not a conversation: expected a JSON array of messages, an object with "messages", a ctxwin export or a session file`);
}
