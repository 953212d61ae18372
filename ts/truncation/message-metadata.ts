// The truncation planner's input for a whole array of messages: each message's role, tokens,
// flags and tool unit, in typed arrays for one call into the core. The messages themselves never
// leave JavaScript.
import { describe, plainError, typeError } from "../runtime/errors.js";
import { MetadataReader, type MetadataOptions } from "../messages/metadata-reader.js";
import type { MessageLike } from "../messages/types.js";
import { messageTokens } from "../tokens/message-tokens.js";
import type { TokenCounter } from "../tokens/token-counter.js";

export interface MessageMetadata {
  roles: Uint8Array;
  tokens: Uint32Array;
  flags: Uint8Array;
  units: Int32Array;
  /** Tool results whose call is not in the messages (when repairing, they are always removed). */
  orphans: number[];
}

export function describeMessages(messages: readonly MessageLike[], counter: TokenCounter, options: MetadataOptions = {}): MessageMetadata {
  if (!Array.isArray(messages)) throw typeError(`messages must be an array, got ${describe(messages)}`);
  const n = messages.length;
  const roles = new Uint8Array(n);
  const flags = new Uint8Array(n);
  const units = new Int32Array(n);
  const orphans: number[] = [];
  const reader = new MetadataReader(options);
  messages.forEach((message, i) => {
    const facts = reader.read(message, i);
    roles[i] = facts.role;
    flags[i] = facts.flags;
    units[i] = facts.unit;
    if (facts.orphan) orphans.push(i);
  });
  const tokens = messageTokens(counter, messages, { checked: true });
  if (tokens.length !== n)
    throw plainError("the counter returned a token count per message of the wrong length", "ERR_CTXWIN_INVALID_ARGUMENT");
  return { roles, tokens, flags, units, orphans };
}
