// What chat templates' `tojson` and `| trim` give in Python (transformers renders templates with
// Jinja2 in Python, and so do vLLM and SGLang): json.dumps with ensure_ascii=False and its default
// separators, and str.strip(). ctxwin's own renderers of published templates use these.

/**
 * json.dumps(value, ensure_ascii=False[, indent]): ", " and ": " between items without an indent,
 * "," and a newline with one (what JSON.stringify writes then). Strings are escaped as JSON.stringify
 * escapes them, which for well-formed text is what Python writes.
 */
export function pythonJson(value: unknown, indent?: number): string {
  if (indent !== undefined) return JSON.stringify(value, null, indent) ?? "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return pythonJson((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined || typeof item === "function" ? "null" : pythonJson(item))).join(", ")}]`;
  const entries: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    entries.push(`${JSON.stringify(key)}: ${pythonJson(item)}`);
  }
  return `{${entries.join(", ")}}`;
}

// str.isspace(): Unicode White_Space plus the four information separators (U+001C-U+001F);
// unlike JavaScript's trim, not U+FEFF.
const PYTHON_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const EDGES = new RegExp(`^[${PYTHON_SPACE}]+|[${PYTHON_SPACE}]+$`, "g");

/** Python's str.strip(): Jinja2's `trim` filter. */
export function pythonStrip(text: string): string {
  return text.replace(EDGES, "");
}
