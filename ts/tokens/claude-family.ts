// Which Claude tokenizer family a model id counts with, for every spelling of a Claude model id:
// Anthropic's (`claude-opus-4-5-20251101`, `claude-3-5-sonnet-latest`), provider-prefixed
// (`anthropic/claude-opus-4.7`), Amazon Bedrock (`anthropic.claude-3-5-sonnet-20240620-v1:0`,
// `us.anthropic.claude-sonnet-4-20250514-v1:0`) and Google Vertex AI (`claude-opus-4@20250514`).

/** The tokenizer generations of Claude 3 and later (ctok's names). */
export type ClaudeFamily = "v3" | "v4.7" | "v5";
export const CLAUDE_FAMILIES: readonly ClaudeFamily[] = ["v3", "v4.7", "v5"];

/**
 * The family of a Claude model id, or undefined when `model` is not a Claude 3+ model (Claude 2
 * and Claude Instant had another tokenizer). Claude 3, 3.5, 3.7 and 4.0 to 4.6 count with v3;
 * 4.7 to 4.9 with v4.7; 5 and later with v5.
 */
export function claudeFamilyForModel(model: string): ClaudeFamily | undefined {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf("/") + 1); // anthropic/…, openrouter/anthropic/…
  const bedrock = id.indexOf("anthropic.");
  if (bedrock >= 0) id = id.slice(bedrock + "anthropic.".length); // [us.|eu.|apac.|global.]anthropic.…
  id = id.replace(/@.*$/, "").replace(/:\d+$/, ""); // Vertex @date, Bedrock :0
  const match = /(?:^|[^a-z0-9])claude(?:-|$)(.*)$/.exec(id);
  if (!match) return undefined;
  // The version is the run of short numbers after the name: `3-5-sonnet`, `sonnet-4-5`,
  // `opus-4.7`. Dates (8 digits) and suffixes (`v1`, `latest`) are not part of it.
  const numbers: number[] = [];
  for (const part of (match[1] as string).split(/[-.]/)) {
    if (/^\d{1,2}$/.test(part)) numbers.push(Number(part));
    else if (numbers.length > 0 && /^\d+$/.test(part)) break;
    else if (numbers.length > 0 && !/^(opus|sonnet|haiku)$/.test(part)) break;
  }
  if (numbers.length === 0) return undefined;
  const [major = 0, minor = 0] = numbers;
  if (major < 3) return undefined;
  if (major >= 5) return "v5";
  if (major === 4 && minor >= 7) return "v4.7";
  return "v3";
}
