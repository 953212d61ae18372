// Reading what the commands are given: files or standard input, and conversations in the shapes
// agent developers have at hand (a JSON array of messages, a request body, a ctxwin export or
// session file).
import { open, readFile } from "node:fs/promises";
import { omissionMarker } from "../messages/omission-marker.js";
import { ContextReplay, replay, type ContextEntry, type ContextView } from "../session/context-log.js";
import { EXPORT_FORMAT, safeParseExport } from "../session/export.js";
import { Acceptance, acceptedBatches, isSessionLogText, MAX_LINE_BYTES, parseLine, recordsOfText } from "../session/file-log.js";
import { forwardLines } from "../session/file-lines.js";
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
    throw new InputError(
      code === "ENOENT" ? `${path}: no such file` : code === "EISDIR" ? `${path}: is a directory` : `${path}: ${(error as Error).message}`,
    );
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
    if (!isRecord(m) || typeof m.role !== "string")
      throw new InputError(`${path}: ${where}[${i}] is not a message (an object with a string "role")`);
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
  return {
    messages,
    tools: [],
    ...(system === null ? {} : { system }),
    format: `ctxwin export of session ${metadata.session_id}`,
    metadata,
  };
}

/** A session file of FileSessionStore (JSONL records): the view its log replays to. */
function fromSessionLog(records: Array<{ entry: SessionEntry }>): Conversation {
  return conversationOf(replay(records.map((r) => r.entry as ContextEntry)), records.length);
}

function conversationOf(view: ContextView, records: number): Conversation {
  const messages = view.entries.map((e) => e.message);
  if (view.marker)
    messages.splice(view.marker.index, 0, omissionMarker(view.marker.omitted, view.marker.role, view.marker.named, view.marker.unnamed));
  const system = view.systemPrompt ?? undefined;
  return {
    messages,
    tools: [],
    ...(system === undefined ? {} : { system }),
    format: `session log, ${records} records`,
    ...(view.metadata ? { metadata: view.metadata } : {}),
  };
}

/**
 * Files larger than this that are session logs are read as a stream, by the store's reader: a
 * string holds at most about 512 MB, and a log's view is usually far smaller than its history.
 */
const STREAMED_LOG_BYTES = 64 * 1024 * 1024;

/**
 * Reads a conversation from a file or standard input ("-"). A session log larger than
 * STREAMED_LOG_BYTES is replayed as it streams (memory: the messages its view keeps, not the file);
 * anything else is read whole and parsed by parseConversation.
 */
export async function readConversation(path: string, io: Io): Promise<Conversation> {
  if (path !== "-") {
    const streamed = await streamedSessionLog(path);
    if (streamed) return streamed;
  }
  return parseConversation(await readText(path, io), path === "-" ? "(stdin)" : path);
}

/** The conversation of a large session file, or undefined for anything else (read whole instead). */
async function streamedSessionLog(path: string): Promise<Conversation | undefined> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return undefined; // readText says why
  }
  try {
    const { size } = await handle.stat();
    if (size <= STREAMED_LOG_BYTES) return undefined;
    let first: Buffer | undefined;
    for await (const line of forwardLines(handle, 0, size, MAX_LINE_BYTES, path)) {
      if (line.bytes.length === 0) continue;
      first = line.bytes;
      break;
    }
    if (!first || parseLine(first) === undefined) return undefined;
    const view = new ContextReplay();
    let records = 0;
    for await (const batch of acceptedBatches(handle, new Acceptance({ offset: 0, version: 0 }), size, {
      where: path,
      includeUnterminated: false,
      lineNumbers: true,
    })) {
      batch.entries.forEach((entry, k) => view.apply(entry, batch.seq + k));
      records += batch.entries.length;
    }
    return conversationOf(view.result(), records);
  } catch (error) {
    // A corrupt log or a line over the bound: the reader's coded message, as for a file read whole.
    throw new InputError((error as Error).message);
  } finally {
    await handle.close();
  }
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
      if (i < lines.length - 1 || !text.endsWith(line))
        throw new InputError(`${path}: line ${i + 1} is not JSON (${(error as Error).message})`);
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
  throw new InputError(
    `${path}: not a conversation: expected a JSON array of messages, an object with "messages", a ctxwin export or a session file`,
  );
}
