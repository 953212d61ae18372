// The OpenAI Responses API's input items, every type of the `openai` package's ResponseInputItem
// union (test/ts/messages/responses-items.test.ts reads that union from the package's types and
// fails on a type this table lacks): the chat role each stands for, what it holds (its tool call,
// its output, text), and its checks. A call item and the output item that answers it share a call
// id and become one unit; a hosted tool's item (web search, file search, code interpreter, image
// generation, an MCP call) holds its call and its result at once. An item ctxwin cannot place (an
// item_reference stands for an item stored at OpenAI, of a role and size only OpenAI knows; a type
// this table does not know) is a TypeError with code ERR_CTXWIN_UNSUPPORTED_MESSAGE naming the type.
import { describe, typeError } from "../runtime/errors.js";
import { checkJsonValue, checkOptionalString, checkPart, idOf, isRecord, type MessageVisitor } from "./content-parts.js";

type Item = Record<string, unknown>;

interface ItemShape {
  /** The chat role the item stands for. */
  role: "assistant" | "tool" | "user" | "developer";
  /** Hands what the item holds to the visitor. */
  visit(item: Item, visitor: MessageVisitor): void;
  /** Checks the fields visit reads (the type is checked already). */
  check(item: Item, at: string): void;
}

function requireString(item: Item, key: string, at: string): void {
  if (typeof item[key] !== "string") throw typeError(`${at}.${key} must be a string, got ${describe(item[key])}`);
}

function optionalStrings(item: Item, at: string, ...keys: string[]): void {
  for (const key of keys) checkOptionalString(item[key], `${at}.${key}`);
}

/** A field that is a string, or a value JSON can carry. */
function stringOrJson(item: Item, key: string, at: string): void {
  if (typeof item[key] !== "string") checkJsonValue(item[key] ?? null, `${at}.${key}`);
}

function partList(item: Item, key: string, at: string): void {
  const list = item[key];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) throw typeError(`${at}.${key} must be an array of parts, got ${describe(list)}`);
  list.forEach((part: unknown, i) => {
    if (!isRecord(part) || (part.text !== undefined && typeof part.text !== "string"))
      throw typeError(`${at}.${key}[${i}] must be a part with string text, got ${describe(part)}`);
  });
}

/** An item the model emits to call a client-side tool: its name, and what it passes as `args`. */
function call(name: (item: Item) => unknown, args: string, check: (item: Item, at: string) => void = () => {}): ItemShape {
  return {
    role: "assistant",
    visit: (item, visitor) => {
      visitor.toolCall(idOf(item.call_id), name(item), item[args]);
      if (typeof item.namespace === "string") visitor.text(item.namespace);
    },
    check: (item, at) => {
      optionalStrings(item, at, "call_id", "namespace");
      stringOrJson(item, args, at);
      check(item, at);
    },
  };
}

/** An item that answers a call item by its call id (local_shell_call_output says `id` for it). */
function output(key: string, read: (item: Item) => unknown = (item) => item[key]): ItemShape {
  return {
    role: "tool",
    visit: (item, visitor) =>
      visitor.toolResult(idOf(item.call_id) ?? (item.type === "local_shell_call_output" ? idOf(item.id) : undefined), read(item)),
    check: (item, at) => {
      optionalStrings(item, at, "call_id", "id");
      const value = item[key];
      if (Array.isArray(value) && value.every((part) => isRecord(part) && typeof part.type === "string"))
        value.forEach((part, i) => checkPart(part, `${at}.${key}[${i}]`));
      else stringOrJson(item, key, at);
    },
  };
}

/**
 * An item of a tool OpenAI runs itself: the call (its `id` is the call's) and its result, what the
 * item carries of it (else its status: the call is over, nothing waits for a result).
 */
function hosted(
  name: string,
  args: (item: Item) => unknown,
  result: (item: Item) => unknown,
  check: (item: Item, at: string) => void,
): ItemShape {
  return {
    role: "assistant",
    visit: (item, visitor) => {
      const id = idOf(item.id);
      visitor.toolCall(id, name, args(item));
      visitor.toolResult(id, result(item) ?? item.status);
    },
    check: (item, at) => {
      optionalStrings(item, at, "id", "status");
      check(item, at);
    },
  };
}

const text =
  (...keys: string[]): ItemShape["visit"] =>
  (item, visitor) => {
    for (const key of keys) visitor.text(item[key]);
  };

const ITEM_SHAPES: Readonly<Record<string, ItemShape>> = {
  reasoning: {
    role: "assistant",
    visit: (item, visitor) => {
      for (const list of [item.summary, item.content])
        if (Array.isArray(list)) for (const part of list) if (isRecord(part)) visitor.text(part.text);
      visitor.text(item.encrypted_content);
    },
    check: (item, at) => {
      partList(item, "summary", at);
      partList(item, "content", at);
      optionalStrings(item, at, "encrypted_content");
    },
  },
  function_call: call(
    (item) => item.name,
    "arguments",
    (item, at) => requireString(item, "name", at),
  ),
  function_call_output: output("output"),
  custom_tool_call: call(
    (item) => item.name,
    "input",
    (item, at) => requireString(item, "name", at),
  ),
  custom_tool_call_output: output("output"),
  computer_call: call(
    () => "computer",
    "action",
    (item, at) => checkJsonValue(item.actions ?? null, `${at}.actions`),
  ),
  // The screenshot is an image part as the model sees it.
  computer_call_output: output("output", (item) => [item.output]),
  local_shell_call: call(() => "local_shell", "action"),
  local_shell_call_output: output("output"),
  shell_call: call(() => "shell", "action"),
  shell_call_output: output("output"),
  apply_patch_call: call(() => "apply_patch", "operation"),
  apply_patch_call_output: output("output", (item) => item.output ?? item.status),
  tool_search_call: call(() => "tool_search", "arguments"),
  tool_search_output: output("tools"),
  program: call(() => "program", "code"),
  program_output: output("result"),
  mcp_approval_request: {
    role: "assistant",
    visit: (item, visitor) => {
      text("server_label", "name", "arguments")(item, visitor);
      if (typeof item.id === "string") visitor.link?.(item.id, "call");
    },
    check: (item, at) => {
      optionalStrings(item, at, "id", "server_label", "name");
      stringOrJson(item, "arguments", at);
    },
  },
  mcp_approval_response: {
    role: "tool",
    visit: (item, visitor) => {
      if (typeof item.approval_request_id === "string") visitor.link?.(item.approval_request_id, "result");
      visitor.text(item.reason);
    },
    check: (item, at) => optionalStrings(item, at, "approval_request_id", "reason"),
  },
  mcp_call: {
    role: "assistant",
    visit: (item, visitor) => {
      const id = idOf(item.id);
      visitor.toolCall(id, item.name, item.arguments);
      visitor.toolResult(id, item.output ?? item.error ?? item.status);
      visitor.text(item.server_label);
      // An approved call goes with its approval.
      if (typeof item.approval_request_id === "string") visitor.link?.(item.approval_request_id, "result");
    },
    check: (item, at) => {
      requireString(item, "name", at);
      optionalStrings(item, at, "id", "server_label", "output", "error", "approval_request_id", "status");
      stringOrJson(item, "arguments", at);
    },
  },
  mcp_list_tools: {
    role: "assistant",
    visit: text("server_label", "tools", "error"),
    check: (item, at) => {
      optionalStrings(item, at, "server_label", "error");
      checkJsonValue(item.tools ?? null, `${at}.tools`);
    },
  },
  web_search_call: hosted(
    "web_search",
    (item) => item.action,
    () => undefined,
    (item, at) => checkJsonValue(item.action ?? null, `${at}.action`),
  ),
  file_search_call: hosted(
    "file_search",
    (item) => item.queries,
    (item) => item.results,
    (item, at) => {
      checkJsonValue(item.queries ?? null, `${at}.queries`);
      checkJsonValue(item.results ?? null, `${at}.results`);
    },
  ),
  code_interpreter_call: hosted(
    "code_interpreter",
    (item) => item.code,
    (item) => item.outputs,
    (item, at) => {
      optionalStrings(item, at, "code", "container_id");
      checkJsonValue(item.outputs ?? null, `${at}.outputs`);
    },
  ),
  // The generated image is sent back as an image, not as its base64 text.
  image_generation_call: hosted(
    "image_generation",
    () => undefined,
    (item) => (typeof item.result === "string" ? [{ type: "image" }] : null),
    (item, at) => optionalStrings(item, at, "result"),
  ),
  // What /responses/compact returns in place of the turns it compacted: opaque, counted as its text.
  compaction: { role: "assistant", visit: text("encrypted_content"), check: (item, at) => optionalStrings(item, at, "encrypted_content") },
  compaction_trigger: { role: "user", visit: () => {}, check: () => {} },
  additional_tools: { role: "developer", visit: text("tools"), check: (item, at) => checkJsonValue(item.tools ?? null, `${at}.tools`) },
};

/** The Responses item types ctxwin places (message items are read as messages). */
export const RESPONSES_ITEM_TYPES: readonly string[] = Object.keys(ITEM_SHAPES);

/**
 * The shape of a Responses item, or undefined when `message` is a message (it has a role: a chat
 * message, or a Responses `message` item) or no item this table knows. `additional_tools` has a
 * role ("developer") and is an item all the same.
 */
export function responsesItemShape(message: Item): ItemShape | undefined {
  const type = message.type;
  if (message.role !== undefined && type !== "additional_tools") return undefined;
  return typeof type === "string" && Object.hasOwn(ITEM_SHAPES, type) ? ITEM_SHAPES[type] : undefined;
}

/** Checks a Responses item (see the file comment), or does nothing for a message with a role. */
export function checkResponsesItem(message: Item, at: string): void {
  const shape = responsesItemShape(message);
  if (shape !== undefined) return shape.check(message, at);
  if (message.role !== undefined) return;
  const type = message.type;
  if (
    type === "item_reference" ||
    ((type === undefined || type === null) && typeof message.id === "string" && message.content === undefined)
  ) {
    throw typeError(
      `${at} is an item_reference (id ${JSON.stringify(message.id)}): it stands for an item OpenAI stored, whose role and size ctxwin cannot know; pass the item itself`,
      "ERR_CTXWIN_UNSUPPORTED_MESSAGE",
    );
  }
  if (typeof type === "string" && type !== "message") {
    throw typeError(
      `${at} is an item of type ${JSON.stringify(type)}, which ctxwin cannot place: it reads messages with a role and the Responses API's items (${RESPONSES_ITEM_TYPES.join(", ")})`,
      "ERR_CTXWIN_UNSUPPORTED_MESSAGE",
    );
  }
}
