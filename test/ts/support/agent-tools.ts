// Twenty tool definitions of the kind a coding agent sends (OpenAI's function-tool shape): string,
// number, boolean, enum and array parameters, required and optional, with descriptions.

type Parameter = { type: string; description?: string; enum?: string[]; items?: { type: string } };

function tool(name: string, description: string, properties: Record<string, Parameter>, required: string[]) {
  return { type: "function" as const, function: { name, description, parameters: { type: "object", properties, required } } };
}

const path = { type: "string", description: "Path relative to the workspace root" };

export const AGENT_TOOLS = [
  tool(
    "read_file",
    "Read a file and return its contents.",
    { path, start_line: { type: "integer", description: "First line to read (1-based)" } },
    ["path"],
  ),
  tool("write_file", "Create or overwrite a file.", { path, content: { type: "string", description: "The new contents" } }, [
    "path",
    "content",
  ]),
  tool(
    "edit_file",
    "Replace one occurrence of a string in a file.",
    { path, old_string: { type: "string" }, new_string: { type: "string" } },
    ["path", "old_string", "new_string"],
  ),
  tool(
    "list_directory",
    "List the entries of a directory.",
    { path, recursive: { type: "boolean", description: "Descend into subdirectories" } },
    ["path"],
  ),
  tool(
    "search_files",
    "Search file contents with a regular expression.",
    { pattern: { type: "string", description: "A PCRE pattern" }, glob: { type: "string", description: "Only files matching this glob" } },
    ["pattern"],
  ),
  tool(
    "run_command",
    "Run a shell command and return its output.",
    { command: { type: "string" }, timeout_seconds: { type: "number", description: "Kill the command after this long" } },
    ["command"],
  ),
  tool(
    "get_weather",
    "Get the current weather for a city.",
    { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
    ["city"],
  ),
  tool("web_search", "Search the web and return the top results.", { query: { type: "string" }, max_results: { type: "integer" } }, [
    "query",
  ]),
  tool("fetch_url", "Download a web page as text.", { url: { type: "string", description: "An http or https URL" } }, ["url"]),
  tool(
    "create_issue",
    "Open an issue in the tracker.",
    { title: { type: "string" }, body: { type: "string" }, labels: { type: "array", items: { type: "string" } } },
    ["title"],
  ),
  tool("comment_issue", "Comment on an issue.", { number: { type: "integer" }, body: { type: "string" } }, ["number", "body"]),
  tool("git_status", "Show the working tree status.", {}, []),
  tool(
    "git_diff",
    "Show changes between commits or the working tree.",
    { base: { type: "string", description: "A commit, branch or tag" } },
    [],
  ),
  tool("git_commit", "Record staged changes.", { message: { type: "string" } }, ["message"]),
  tool(
    "run_tests",
    "Run the test suite or some of its files.",
    { files: { type: "array", items: { type: "string" } }, watch: { type: "boolean" } },
    [],
  ),
  tool("send_email", "Send an email.", { to: { type: "string" }, subject: { type: "string" }, body: { type: "string" } }, [
    "to",
    "subject",
    "body",
  ]),
  tool(
    "calendar_add",
    "Add an event to the calendar.",
    { title: { type: "string" }, start: { type: "string", description: "ISO 8601 date-time" }, minutes: { type: "integer" } },
    ["title", "start"],
  ),
  tool(
    "translate",
    "Translate text into another language.",
    { text: { type: "string" }, target: { type: "string", enum: ["de", "fr", "es", "ja", "zh"] } },
    ["text", "target"],
  ),
  tool("calculator", "Evaluate an arithmetic expression.", { expression: { type: "string" } }, ["expression"]),
  tool("remember", "Store a fact for later turns.", { key: { type: "string" }, value: { type: "string" } }, ["key", "value"]),
];
