import { requireString } from "../runtime/errors.js";
import { native } from "../runtime/native.js";

/**
 * The reference's token estimate: `Math.ceil(text.length / 3.5)`, where `length` counts UTF-16 code units
 * (an astral character counts 2). Computed by the core; only the length crosses into it.
 */
export function estimateTokens(text: string): number {
  requireString(text, "text");
  return native.estimateTokens(text.length);
}
