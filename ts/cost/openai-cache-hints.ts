// OpenAI caches prompt prefixes automatically, routed by a hash of the prefix and, when given, a
// `prompt_cache_key`: requests with the same key go to the same cache, so a session that sends one
// key keeps hitting it while other sessions share its system prompt. The key is derived from the
// session id (a 64-bit FNV-1a hash, hex), stable across processes and restarts, and it carries
// nothing of the id itself (the key should hold no user data).
import { requireString } from "../runtime/errors.js";
import { rangeError } from "../runtime/errors.js";

/** A stable `prompt_cache_key` for a session (`ctxwin-` and 16 hex digits). */
export function openAIPromptCacheKey(sessionId: string): string {
  requireString(sessionId, "sessionId");
  if (sessionId.length === 0) throw rangeError("sessionId must not be empty");
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(sessionId)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return `ctxwin-${hash.toString(16).padStart(16, "0")}`;
}
