// A context's export and import (a chat's /export and /import): one JSON object, its metadata
// and its turns.
//
//   { "format": "ctxwin-context", "version": 1,
//     "metadata": { "session_id", "agent", "model", "mode", "created_at", "updated_at",
//                   "message_count", "token_usage", ...the manager's own metadata },
//     "system_prompt": "..." | null,
//     "turns": [ {message}, ..., {role, content, "ctxwin": {"kind": "summary"}},
//                {role, content: "[12 messages omitted; recall by id: ...]",
//                 "ctxwin": {"kind": "omission", "omitted": 12, "named": [{id, line}, ...], "unnamed": 3}} ] }
//
// A turn is the caller's message as it was (any of the shapes ctxwin reads), so other tools can
// read the file; what ctxwin wrote itself (summaries, the omission marker) carries a `ctxwin`
// key. Import validates the whole file before anything changes (zod's parse / safeParse).
import { ROLE_NAMES, type InsertedRole } from "../messages/roles.js";
import { omissionMarker, omissionNamesOf, omissionNamesProblem, type OmissionNames } from "../messages/omission-marker.js";
import { describe, typeError, type CtxwinTypeError } from "../runtime/errors.js";
import { jsonProblem, MAX_LOGGED_BYTES } from "../messages/log-safe.js";
import { MAX_JSON_DEPTH } from "../messages/message-shape.js";
import type { MessageLike } from "../messages/types.js";
import type { ProblemRecord } from "../compaction/open-problems.js";

export const EXPORT_FORMAT = "ctxwin-context";
export const EXPORT_VERSION = 1;

export interface ExportMetadata {
  session_id: string;
  agent: string | null;
  model: string;
  mode: string;
  /** ISO 8601. */
  created_at: string;
  updated_at: string;
  message_count: number;
  token_usage: number;
  /** The manager's own metadata (`manager.metadata`) travels here too. */
  [key: string]: unknown;
}

export type TurnAnnotation = { kind: "summary" } | ({ kind: "omission"; omitted: number } & OmissionNames);

export type ExportTurn = MessageLike & { ctxwin?: TurnAnnotation };

export interface ContextExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  metadata: ExportMetadata;
  system_prompt: string | null;
  turns: ExportTurn[];
  /** The session's open and resolved problems as compaction keeps them; absent when there are none (and in exports written before they were kept). */
  open_problems?: ProblemRecord;
}

/** A manager's state as export writes it and import restores it. */
export interface ContextState<M extends MessageLike = MessageLike> {
  messages: M[];
  /** Indices (in `messages`) of the summaries a compaction wrote. */
  summaries: readonly number[];
  /** The omission marker: before messages[index], with the omitted messages it names. */
  marker: ({ index: number; omitted: number; role: InsertedRole } & OmissionNames) | undefined;
  /** undefined: leave the manager's as it is. */
  systemPrompt?: string | null;
  metadata?: Record<string, unknown>;
  /** The open-problems record (undefined: none). */
  problems?: ProblemRecord;
  sessionId?: string;
  createdAt?: number;
  updatedAt?: number;
}

export type ExportError = CtxwinTypeError & { code: "ERR_CTXWIN_INVALID_EXPORT"; path: string };

export type SafeParseResult = { success: true; data: ContextExport } | { success: false; error: ExportError };

/** Keys of the metadata that ctxwin computes; the rest is the manager's own metadata. */
const COMPUTED = new Set(["session_id", "model", "mode", "created_at", "updated_at", "message_count", "token_usage"]);

/** Validates an export (the object, or its JSON text); throws an ExportError naming the first bad path. */
export function parseExport(input: unknown): ContextExport {
  const result = safeParseExport(input);
  if (!result.success) throw result.error;
  return result.data;
}

/**
 * Like parseExport, but returns `{ success, data }` or `{ success, error }` instead of throwing,
 * whatever it is given (a Proxy whose traps throw, a getter that throws: a failure too).
 */
export function safeParseExport(input: unknown): SafeParseResult {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      return { success: false, error: exportError("", `is not JSON (${bounded((error as Error).message)})`) };
    }
  }
  let problem: ExportError | undefined;
  try {
    problem = check(value);
  } catch (error) {
    // What the checks read threw (the walk catches what it reads itself; this is the rest).
    problem = exportError(
      "",
      `cannot be read: it threw ${bounded(error instanceof Error ? `${error.name}: ${error.message}` : describe(error))}`,
    );
  }
  return problem ? { success: false, error: problem } : { success: true, data: value as ContextExport };
}

const bounded = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}...` : text);

function exportError(path: string, problem: string): ExportError {
  const where = path === "" ? "the export" : path;
  return Object.assign(typeError(`invalid context export: ${where} ${problem}`, "ERR_CTXWIN_INVALID_EXPORT"), {
    code: "ERR_CTXWIN_INVALID_EXPORT" as const,
    path,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** How deep a turn may nest, and the rest of an export: what a manager accepts in a message (MAX_JSON_DEPTH). */
export const MAX_EXPORT_DEPTH = MAX_JSON_DEPTH;

/** The JSON of an export's parts other than its turns, at most (each turn is bounded as a logged message is). */
const MAX_EXPORT_REST_BYTES = 64 * 1024 * 1024;

/**
 * What JSON cannot give back equal, anywhere in the export (log-safe.ts's walk, without recursion,
 * bounded by the input's real size): each turn as a manager's door checks a message (so a
 * context that imports can be logged and reopened), the rest of the file likewise.
 */
function shapeProblem(root: Record<string, unknown>): ExportError | undefined {
  const rest = jsonProblem(root, "", { skip: "turns", maxBytes: MAX_EXPORT_REST_BYTES });
  if (rest) return exportError(rest.path.replace(/^\./, ""), rest.problem);
  const turns = root.turns;
  if (!Array.isArray(turns)) return undefined; // check() says what it must be
  const own = Object.keys(turns);
  for (let i = 0; i < turns.length; i++) {
    if (own[i] !== String(i)) return exportError(`turns[${i}]`, "is a hole in its array, which JSON writes as null");
    const problem = jsonProblem(turns[i], `turns[${i}]`, { maxBytes: MAX_LOGGED_BYTES });
    if (problem) return exportError(problem.path, problem.problem);
  }
  return undefined;
}

function check(value: unknown): ExportError | undefined {
  const fail = (path: string, expected: string, got: unknown) => exportError(path, `must be ${expected}, got ${describe(got)}`);
  if (!isObject(value)) return fail("", "an object with metadata and turns", value);
  const shape = shapeProblem(value);
  if (shape) return shape;
  if (value.format !== undefined && value.format !== EXPORT_FORMAT) return fail("format", JSON.stringify(EXPORT_FORMAT), value.format);
  if (value.version !== undefined && value.version !== EXPORT_VERSION) return fail("version", String(EXPORT_VERSION), value.version);
  const meta = value.metadata;
  if (!isObject(meta)) return fail("metadata", "an object", meta);
  if (typeof meta.session_id !== "string" || meta.session_id === "")
    return fail("metadata.session_id", "a non-empty string", meta.session_id);
  for (const key of ["model", "mode"]) {
    if (meta[key] !== undefined && typeof meta[key] !== "string") return fail(`metadata.${key}`, "a string", meta[key]);
  }
  if (meta.agent !== undefined && meta.agent !== null && typeof meta.agent !== "string")
    return fail("metadata.agent", "a string or null", meta.agent);
  for (const key of ["created_at", "updated_at"]) {
    const t = meta[key];
    if (t !== undefined && (typeof t !== "string" || Number.isNaN(Date.parse(t))))
      return fail(`metadata.${key}`, "an ISO 8601 date string", t);
  }
  if (value.system_prompt !== undefined && value.system_prompt !== null && typeof value.system_prompt !== "string") {
    return fail("system_prompt", "a string or null", value.system_prompt);
  }
  // Its fields are the core's to check, when the record is restored (before anything changes).
  const problems = value.open_problems;
  if (problems !== undefined && !(isObject(problems) && Array.isArray(problems.problems)))
    return fail("open_problems", "a problem record { problems: [...] }", problems);
  const turns = value.turns;
  if (!Array.isArray(turns)) return fail("turns", "an array of turn objects", turns);
  let omissions = 0;
  for (let i = 0; i < turns.length; i++) {
    const turn: unknown = turns[i];
    const at = `turns[${i}]`;
    if (!isObject(turn)) return fail(at, "a turn object", turn);
    if (typeof turn.role !== "string" || !(ROLE_NAMES as string[]).includes(turn.role))
      return fail(`${at}.role`, `one of ${ROLE_NAMES.join(", ")}`, turn.role);
    const content = turn.content;
    if (Array.isArray(content)) {
      for (let j = 0; j < content.length; j++) {
        const part: unknown = content[j];
        const p = `${at}.content[${j}]`;
        if (!isObject(part)) return fail(p, "a content part object", part);
        if (typeof part.type !== "string") return fail(`${p}.type`, "a string", part.type);
        if (part.type === "text" && typeof part.text !== "string") return fail(`${p}.text`, "a string", part.text);
      }
    } else if (content !== undefined && content !== null && typeof content !== "string") {
      return fail(`${at}.content`, "a string, an array of parts or null", content);
    }
    if (turn.tool_calls !== undefined) {
      if (!Array.isArray(turn.tool_calls)) return fail(`${at}.tool_calls`, "an array", turn.tool_calls);
      for (let j = 0; j < turn.tool_calls.length; j++) {
        const call: unknown = turn.tool_calls[j];
        if (!isObject(call)) return fail(`${at}.tool_calls[${j}]`, "a tool call object", call);
        if (typeof call.id !== "string") return fail(`${at}.tool_calls[${j}].id`, "a string", call.id);
      }
    }
    if (turn.tool_call_id !== undefined && typeof turn.tool_call_id !== "string")
      return fail(`${at}.tool_call_id`, "a string", turn.tool_call_id);
    // A tool result names its call: OpenAI's tool_call_id, or (AI SDK) tool-result parts that do.
    if (
      turn.role === "tool" &&
      turn.tool_call_id === undefined &&
      !(Array.isArray(content) && content.length > 0 && content.every((p) => isObject(p) && p.type === "tool-result"))
    ) {
      return fail(
        `${at}.tool_call_id`,
        "the id of the tool call a tool turn answers (or its content AI SDK tool-result parts)",
        turn.tool_call_id,
      );
    }
    const note = turn.ctxwin;
    if (note !== undefined) {
      if (!isObject(note)) return fail(`${at}.ctxwin`, "an object", note);
      if (note.kind === "omission") {
        // A count of messages: a safe integer (1e300 is an integer to JavaScript, not a count).
        if (typeof note.omitted !== "number" || !Number.isSafeInteger(note.omitted) || note.omitted < 1)
          return fail(`${at}.ctxwin.omitted`, "an integer from 1 to 2^53 - 1", note.omitted);
        if (turn.role !== "system" && turn.role !== "user" && turn.role !== "assistant")
          return fail(`${at}.role`, "system, user or assistant for an omission marker", turn.role);
        if (++omissions > 1) return exportError(`${at}.ctxwin.kind`, "is a second omission marker: a context has at most one");
        const names = omissionNamesProblem(note);
        if (names !== undefined) return fail(`${at}.ctxwin.${names[0]}`, names[1], note[names[0]]);
      } else if (note.kind !== "summary") {
        return fail(`${at}.ctxwin.kind`, '"summary" or "omission"', note.kind);
      }
    }
  }
  return undefined;
}

/** The export of a manager's state (plain JSON: copies, never the caller's objects). */
export function buildExport(
  state: Required<Pick<ContextState, "sessionId" | "createdAt" | "updatedAt">> & ContextState,
  facts: { model: string; mode: string; tokenUsage: number },
): ContextExport {
  const own = state.metadata ?? {};
  const turns: ExportTurn[] = [];
  const summaries = new Set(state.summaries);
  const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  state.messages.forEach((message, i) => {
    if (state.marker && state.marker.index === i) turns.push(omissionTurn(state.marker));
    turns.push(summaries.has(i) ? { ...copy(message), ctxwin: { kind: "summary" } } : copy(message));
  });
  if (state.marker && state.marker.index >= state.messages.length) turns.push(omissionTurn(state.marker));
  const extra = Object.fromEntries(Object.entries(copy(own)).filter(([k]) => !COMPUTED.has(k) && k !== "agent"));
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    metadata: {
      session_id: state.sessionId,
      agent: typeof own.agent === "string" ? own.agent : null,
      model: facts.model,
      mode: facts.mode,
      created_at: new Date(state.createdAt).toISOString(),
      updated_at: new Date(state.updatedAt).toISOString(),
      message_count: state.messages.length,
      token_usage: facts.tokenUsage,
      ...extra,
    },
    system_prompt: state.systemPrompt ?? null,
    turns,
    ...(state.problems !== undefined && state.problems.problems.length > 0 ? { open_problems: copy(state.problems) } : {}),
  };
}

function omissionTurn(marker: { omitted: number; role: InsertedRole } & OmissionNames): ExportTurn {
  const names = omissionNamesOf(marker);
  return {
    role: marker.role,
    content: omissionMarker(marker.omitted, marker.role, names.named, names.unnamed).content,
    ctxwin: { kind: "omission", omitted: marker.omitted, ...names },
  };
}

/** The state an export describes (validated first). */
export function stateOfExport<M extends MessageLike>(
  input: unknown,
): ContextState<M> & { model: string | undefined; mode: string | undefined } {
  const data = parseExport(input);
  const messages: M[] = [];
  const summaries: number[] = [];
  let marker: ContextState["marker"];
  for (const turn of data.turns) {
    const { ctxwin: note, ...message } = JSON.parse(JSON.stringify(turn)) as ExportTurn;
    if (note?.kind === "omission") {
      marker = { index: messages.length, omitted: note.omitted, role: turn.role as InsertedRole, ...omissionNamesOf(note) };
      continue;
    }
    if (note?.kind === "summary") summaries.push(messages.length);
    messages.push(message as M);
  }
  const meta = data.metadata;
  const metadata = Object.fromEntries(Object.entries(meta).filter(([k, v]) => !COMPUTED.has(k) && !(k === "agent" && v === null)));
  return {
    messages,
    summaries,
    marker,
    systemPrompt: data.system_prompt ?? null,
    metadata: JSON.parse(JSON.stringify(metadata)) as Record<string, unknown>,
    problems: data.open_problems === undefined ? undefined : (JSON.parse(JSON.stringify(data.open_problems)) as ProblemRecord),
    sessionId: meta.session_id,
    createdAt: meta.created_at === undefined ? undefined : Date.parse(meta.created_at),
    updatedAt: meta.updated_at === undefined ? undefined : Date.parse(meta.updated_at),
    model: meta.model,
    mode: meta.mode,
  };
}
