// Writes examples/data/agent-request.json: the recorded 42-iteration session of
// examples/data/session.json as the OpenAI chat request an agent would send after its last tool
// result (system prompt, tool definitions, the task, each iteration's tool calls and results).
// `ctxwin inspect` and `ctxwin compact` are shown on it in docs/cli.md, and tested on it.
//
//   node scripts/make-demo-request.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const data = join(dirname(fileURLToPath(import.meta.url)), "..", "examples", "data");
const session = JSON.parse(readFileSync(join(data, "session.json"), "utf8"));

const tool = (name, description, properties, required = Object.keys(properties)) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required } },
});
const tools = [
  tool("list_files", "List the files under a directory of the repository.", {
    path: { type: "string", description: "Directory, relative to the repository root." },
  }),
  tool("read_file", "Read a file of the repository.", {
    path: { type: "string", description: "File path, relative to the repository root." },
  }),
  tool(
    "search_code",
    "Search the repository for a regular expression.",
    {
      pattern: { type: "string", description: "The regular expression." },
      path: { type: "string", description: "Limit the search to this directory." },
    },
    ["pattern"],
  ),
  tool(
    "run_tests",
    "Run the test suite, optionally only the tests whose names match a filter.",
    { filter: { type: "string", description: "Only tests matching this." } },
    [],
  ),
  tool("run_command", "Run a shell command in the repository.", { command: { type: "string", description: "The command line." } }),
  tool("edit_file", "Replace text in a file.", { path: { type: "string" }, find: { type: "string" }, replace: { type: "string" } }),
];

const messages = [
  {
    role: "system",
    content:
      "You are a careful coding agent. Work in small steps: read before you edit, run the tests after every change, and report what you changed.",
  },
  { role: "user", content: session.task },
];
for (const it of session.iterations) {
  messages.push({
    role: "assistant",
    content: it.thought,
    tool_calls: it.calls.map((c) => ({
      id: c.toolCallId,
      type: "function",
      function: { name: c.toolName, arguments: JSON.stringify(c.args) },
    })),
  });
  for (const c of it.calls) {
    const content = c.error !== undefined ? `Error: ${c.error}` : typeof c.result === "string" ? c.result : JSON.stringify(c.result);
    messages.push({ role: "tool", tool_call_id: c.toolCallId, content });
  }
}

const out = join(data, "agent-request.json");
writeFileSync(out, `${JSON.stringify({ model: "gpt-4o", messages, tools }, null, 1)}\n`);
console.log(`wrote ${out}: ${messages.length} messages, ${tools.length} tools`);
