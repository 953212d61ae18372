// What a recorded command did, read from its text alone: its segments (split at && || ; | and
// newlines, outside quotes and heredoc bodies), whether it only reads (cat, sed -n, grep, ls, ...),
// whether it runs tests, and which files it writes, creates, moves or deletes. Written for the
// trajectory benchmark's questions, apart from ctxwin's own readers (the measure must not share
// code with what it measures).

export interface Heredoc {
  /** The target a `> file` on the heredoc's line writes, if any. */
  body: string;
  /** The line that opened it (the command part). */
  line: string;
}

export interface ParsedCommand {
  /** The command without its heredoc bodies. */
  text: string;
  heredocs: Heredoc[];
  /** Each simple command: its words, quotes removed. */
  segments: string[][];
  /** Output redirections' targets (`> f`, `>> f`, `2> f`), /dev/null and &N left out. */
  redirects: string[];
  /** A quote left open: bash rejects the command and runs none of it. */
  unterminated: boolean;
}

const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g;

/** Splits off heredoc bodies: each `<<EOF` (quoted or not, `<<-` too) takes the lines up to its delimiter. */
export function splitHeredocs(command: string): { text: string; heredocs: Heredoc[] } {
  const lines = command.split("\n");
  const kept: string[] = [];
  const heredocs: Heredoc[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    kept.push(line);
    const delimiters = [...line.matchAll(HEREDOC)].map((m) => ({ word: m[2] as string, dash: m[0].startsWith("<<-") }));
    for (const { word, dash } of delimiters) {
      const body: string[] = [];
      i++;
      while (i < lines.length && (dash ? (lines[i] as string).trim() : (lines[i] as string).trimEnd()) !== word)
        body.push(lines[i++] as string);
      heredocs.push({ body: body.join("\n"), line });
    }
  }
  return { text: kept.join("\n"), heredocs };
}

/** Splits `text` into simple commands' words (quotes removed), and collects output redirections. */
export function splitSegments(text: string): { segments: string[][]; redirects: string[]; unterminated: boolean } {
  const segments: string[][] = [];
  const redirects: string[] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  let redirectNext = false;
  const endWord = () => {
    if (!inWord) return;
    if (redirectNext) {
      if (word !== "/dev/null" && !word.startsWith("&")) redirects.push(word);
      redirectNext = false;
    } else words.push(word);
    word = "";
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      const next = text[++i] as string;
      if (next !== "\n") {
        word += next;
        inWord = true;
      }
    } else if (c === "&" && text[i + 1] === "&") {
      endSegment();
      i++;
    } else if (c === "|" || c === ";" || c === "\n") {
      endSegment();
      if (text[i + 1] === "|") i++;
    } else if (c === ">" || (c === "<" && text[i + 1] !== "<")) {
      // `2>` / `&>`: the digit or & before belongs to the operator, not to a word.
      if (inWord && /^\d$|^&$/.test(word)) {
        word = "";
        inWord = false;
      } else endWord();
      if (c === ">") {
        if (text[i + 1] === ">") i++;
        if (text[i + 1] === "&") {
          // `>&2`: a descriptor, not a file.
          i++;
          while (i + 1 < text.length && /\d/.test(text[i + 1] as string)) i++;
          continue;
        }
        redirectNext = true;
      } else {
        // An input redirection's file is read, not written: skip it.
        while (i + 1 < text.length && text[i + 1] === " ") i++;
        let j = i + 1;
        while (j < text.length && !/[\s;&|]/.test(text[j] as string)) j++;
        i = j - 1;
      }
    } else if (c === "<" && text[i + 1] === "<") {
      // A heredoc's operator and delimiter word (its body is already split off).
      endWord();
      i++;
      if (text[i + 1] === "-") i++;
      while (i + 1 < text.length && text[i + 1] === " ") i++;
      let j = i + 1;
      while (j < text.length && !/[\s;&|>]/.test(text[j] as string)) j++;
      i = j - 1;
    } else if (c === " " || c === "\t") {
      endWord();
    } else if (c === "#" && !inWord) {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
    } else {
      word += c;
      inWord = true;
    }
  }
  endSegment();
  return { segments, redirects, unterminated: quote !== undefined };
}

export function parseCommand(command: string): ParsedCommand {
  const { text, heredocs } = splitHeredocs(command);
  const { segments, redirects, unterminated } = splitSegments(text);
  return { text, heredocs, segments, redirects, unterminated };
}

/** A segment's program (its base name, and the word as written) and arguments, past `sudo`, `time`, `timeout N`, `env`, `nice` and assignments. */
export function program(words: readonly string[]): { name: string; word: string; args: string[] } {
  let i = 0;
  while (i < words.length) {
    const w = words[i] as string;
    if (/^[A-Za-z_]\w*=/.test(w) || w === "sudo" || w === "time" || w === "env" || w === "nice" || w === "command" || w === "exec") i++;
    else if (w === "timeout") i += 2;
    else break;
  }
  const word = words[i] ?? "";
  return { name: baseName(word), word, args: words.slice(i + 1) as string[] };
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

// SWE-agent 0.x's reading commands beside the shell's.
const READ_ONLY = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "ls",
  "tree",
  "pwd",
  "echo",
  "printf",
  "wc",
  "nl",
  "diff",
  "cmp",
  "which",
  "type",
  "file",
  "stat",
  "du",
  "df",
  "sort",
  "uniq",
  "cut",
  "tr",
  "column",
  "whoami",
  "cd",
  "true",
  "sleep",
  "date",
  "env",
  "printenv",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "hexdump",
  "od",
  "xxd",
  "open",
  "goto",
  "scroll_up",
  "scroll_down",
  "search_dir",
  "search_file",
  "find_file",
]);
const GIT_READS = new Set([
  "diff",
  "log",
  "show",
  "status",
  "blame",
  "grep",
  "branch",
  "ls-files",
  "rev-parse",
  "describe",
  "remote",
  "config",
]);

/** Whether a segment only reads: a reading program with no writing flag. */
function readOnlySegment(words: readonly string[]): boolean {
  const { name, args } = program(words);
  if (name === "") return true;
  if (READ_ONLY.has(name)) return true;
  if (name === "sed") return args.includes("-n") && !args.some((a) => a.startsWith("-i") || a === "--in-place");
  if (name === "awk" || name === "gawk") return !args.some((a) => a === "-i" || a === "inplace");
  if (name === "find") return !args.some((a) => a === "-delete" || a === "-exec" || a === "-execdir");
  if (name === "xargs") return readOnlySegment(args.filter((a) => !a.startsWith("-")));
  if (name === "git") return GIT_READS.has(args.find((a) => !a.startsWith("-")) ?? "");
  return false;
}

/** Whether `command` only reads: every segment reads, and nothing is redirected to a file. */
export function isReadOnly(command: string): boolean {
  const parsed = parseCommand(command);
  return parsed.redirects.length === 0 && parsed.heredocs.length === 0 && parsed.segments.every(readOnlySegment);
}

const TEST_RUNNERS = new Set(["pytest", "py.test", "tox", "nox", "runtests.py", "ctest", "jest", "vitest", "mocha", "phpunit", "rspec"]);
const BUILD_TESTS: Record<string, RegExp> = {
  mvn: /^(test|verify|install|package|surefire:test)$/,
  mvnw: /^(test|verify|install|package|surefire:test)$/,
  gradle: /^(test|check|build)$/,
  gradlew: /^(test|check|build)$/,
  go: /^test$/,
  cargo: /^test$/,
  npm: /^(test|t)$/,
  yarn: /^test$/,
  make: /^(test|check|tests)$/,
};

/** Whether a segment runs tests: a test runner, `python -m pytest|unittest`, a build tool's test goal, or a test file run directly. */
function testSegment(words: readonly string[]): boolean {
  const { name, word, args } = program(words);
  if (TEST_RUNNERS.has(name)) return true;
  if (/(^|\/)bin\/test$/.test(word)) return true;
  if (/^python[\d.]*$/.test(name)) {
    const m = args.indexOf("-m");
    if (m >= 0)
      return (
        /^(pytest|unittest|nose|nose2|sympy\.testing|django)$/.test(args[m + 1] ?? "") &&
        (args[m + 1] !== "django" || args.includes("test"))
      );
    const script = args.find((a) => !a.startsWith("-"));
    if (script === undefined) return false;
    const file = baseName(script);
    return (
      /(^|\/)runtests\.py$/.test(script) ||
      /^test.*\.py$|_tests?\.py$/.test(file) ||
      (/(^|\/)tests?\//.test(script) && file.endsWith(".py")) ||
      (file === "setup.py" && args.includes("test")) ||
      (file === "manage.py" && args.includes("test"))
    );
  }
  const goal = BUILD_TESTS[name];
  if (goal !== undefined) return args.some((a) => goal.test(a));
  return words.some((w) => /(^|\/)(runtests\.py|bin\/test)$/.test(w));
}

/** Whether `command` runs tests (some segment does). */
export function isTestCommand(command: string): boolean {
  return parseCommand(command).segments.some(testSegment);
}

/** A path without `./`, `a/../`, `/./`, resolved against `cwd` when relative and `cwd` is known. */
export function normalizePath(path: string, cwd?: string): string {
  const joined = path.startsWith("/") || cwd === undefined ? path : `${cwd.replace(/\/$/, "")}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "." || (part === "" && parts.length > 0)) continue;
    if (part === ".." && parts.length > 0 && parts.at(-1) !== "" && parts.at(-1) !== "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/") || "/";
}

/** A path as the repository knows it: the workspace's root (`/testbed/`, SWE-bench's `/<owner>__<repo>/`) taken off. */
export function repositoryPath(path: string): string {
  // /testbed/ (SWE-bench images), /<owner>__<repo>/ (Multi-SWE-bench), /workspace/<owner>__<repo>__<version>/ (OpenHands).
  return path
    .replace(/^\/testbed\//, "")
    .replace(/^\/workspace(?=\/[\w.-]+__[\w.-]+\/)/, "")
    .replace(/^\/[\w.-]+__[\w.-]+\//, "");
}

function looksLikePath(word: string): boolean {
  return word !== "" && !word.startsWith("-") && !/[*?$`{}()<>|;]/.test(word) && !/^\d+$/.test(word);
}

/** The files a Python script writes: `open(path, "w"|"a"|"x"...)`, `Path(path).write_text(...)`. */
function pythonWrites(script: string): string[] {
  const files: string[] = [];
  for (const m of script.matchAll(/open\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*,\s*(?:mode\s*=\s*)?(['"])[wax][^'"]*\3/g))
    files.push(m[2] as string);
  for (const m of script.matchAll(/Path\(\s*(['"])([^'"\n]+)\1\s*\)\.write_(?:text|bytes)\(/g)) files.push(m[2] as string);
  return files;
}

/** The files a patch names: `+++ b/path`, `diff --git a/x b/path`, apply_patch's `*** Update File: path`. */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const m of patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) if (m[1] !== "/dev/null") files.push(m[1] as string);
  for (const m of patch.matchAll(/^--- (?:a\/)?(\S+)/gm)) if (m[1] !== "/dev/null") files.push(m[1] as string);
  for (const m of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) files.push((m[1] as string).trim());
  for (const m of patch.matchAll(/^\*\*\* Move to: (.+)$/gm)) files.push((m[1] as string).trim());
  return files;
}

/**
 * The files `command` writes, creates, moves or deletes, in order, as written (relative paths
 * resolved against `cwd`, followed through `cd`): redirections, sed -i / perl -i, tee, cp / mv /
 * rm / touch, Python scripts' writes (`python - <<EOF`, `python -c`), git apply / patch /
 * apply_patch (their patch inline, or a file `written` holds from an earlier command).
 */
export function editedFiles(command: string, cwd: string | undefined, written: ReadonlyMap<string, string> = new Map()): string[] {
  const parsed = parseCommand(command);
  if (parsed.unterminated) return [];
  const files: string[] = [];
  let dir = cwd;
  const add = (path: string) => {
    if (looksLikePath(path)) files.push(normalizePath(path, dir));
  };
  const bodies = parsed.heredocs.map((h) => h.body).join("\n");
  for (const words of parsed.segments) {
    const { name, args } = program(words);
    const operands = args.filter((a) => !a.startsWith("-"));
    if (name === "cd") {
      const target = operands[0];
      if (target !== undefined && dir !== undefined) dir = normalizePath(target, dir);
      else if (target?.startsWith("/")) dir = normalizePath(target);
    } else if (name === "sed" || name === "perl") {
      if (!args.some((a) => /^-[a-zA-Z]*i/.test(a) || a === "--in-place")) continue;
      // The script is the first operand unless given with -e; the rest are files.
      const hasE = args.includes("-e") || args.includes("--expression");
      let skipNext = false;
      const rest: string[] = [];
      for (const a of args) {
        if (skipNext) {
          skipNext = false;
          continue;
        }
        if (a === "-e" || a === "--expression" || a === "-f") skipNext = true;
        else if (!a.startsWith("-")) rest.push(a);
      }
      // A script quoted wrong (`'... Don\'t ...'`) leaves words that bash passes as files and sed
      // cannot read: only words that look like paths count.
      for (const f of hasE ? rest : rest.slice(1)) if (/[./]/.test(f)) add(f);
    } else if (name === "tee") {
      for (const f of operands) add(f);
    } else if (name === "cp" || name === "install") {
      const target = operands.at(-1);
      if (operands.length >= 2 && target !== undefined) add(target);
    } else if (name === "mv" || name === "rm" || name === "touch" || name === "unlink") {
      for (const f of operands) add(f);
    } else if (/^python[\d.]*$/.test(name)) {
      const c = args.indexOf("-c");
      const script = c >= 0 ? (args[c + 1] ?? "") : args[0] === "-" ? bodies : "";
      for (const f of pythonWrites(script)) add(f);
    } else if ((name === "git" && operands[0] === "apply") || name === "patch" || name === "apply_patch") {
      const patchFile = name === "git" ? operands[1] : undefined;
      const patch = patchFile !== undefined ? (written.get(normalizePath(patchFile, dir)) ?? "") : bodies;
      for (const f of patchFiles(patch)) add(f);
    } else if (name === "git" && (operands[0] === "checkout" || operands[0] === "restore") && args.includes("--")) {
      for (const f of args.slice(args.indexOf("--") + 1)) add(f);
    } else if (name === "create" || name === "str_replace_editor") {
      // SWE-agent's interface: `create <path>`, `str_replace_editor <create|str_replace|insert|undo_edit> <path>`.
      const path =
        name === "create" ? operands[0] : /^(create|str_replace|insert|undo_edit)$/.test(operands[0] ?? "") ? operands[1] : undefined;
      if (path !== undefined) add(path);
    }
  }
  for (const f of parsed.redirects) add(f);
  return [...new Set(files)];
}

/** The heredoc bodies `command` writes to files (`cat > f <<EOF`), by the file's path: a later `git apply f` reads them. */
export function heredocWrites(command: string, cwd: string | undefined): Map<string, string> {
  const parsed = parseCommand(command);
  const out = new Map<string, string>();
  for (const h of parsed.heredocs) {
    const target = splitSegments(h.line.replace(/<<-?\s*(['"]?)[A-Za-z_][\w-]*\1/, "")).redirects[0];
    if (target !== undefined) out.set(normalizePath(target, cwd), h.body);
  }
  return out;
}
