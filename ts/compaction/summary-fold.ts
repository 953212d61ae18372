// Folding summaries: when a compaction summarizes again, the summary so far and the new one become
// one, so that a session never holds more than one summary however often level 3 runs.
//
// The offline digest writes its text in sections, most needed first (the task in the user's words,
// constraints, files changed, open problems, last command, next step, findings, resolved problems,
// earlier commands, files read, tools called, other paths). Two digests merge section by section:
// the task is the first summary's, what the user said later gathers newest first, lists join
// without repeats, the newer last command and next step win (the older last command becomes an
// earlier one), an open problem the newer text resolves moves to the resolved ones. The merged text
// is bounded as the digest bounds its own: each section to its short list, then the oldest items
// of the least needed sections first, whole.
import type { TokenCounter } from "../tokens/token-counter.js";

type Kind = "task" | "quoted" | "list" | "problems" | "newest" | "commands" | "tools";

/** The digest's sections in its order, which is the order of need. */
const SECTIONS: ReadonlyArray<{ head: string; kind: Kind }> = [
  { head: "Task (the user's words): ", kind: "task" },
  { head: "Constraints (the user's words): ", kind: "quoted" },
  { head: "The user later said, newest first: ", kind: "quoted" },
  { head: "Files changed: ", kind: "list" },
  { head: "Open problems, newest first:", kind: "problems" },
  { head: "Last command: ", kind: "newest" },
  { head: "Next step (last stated): ", kind: "newest" },
  { head: "Findings and decisions, newest first: ", kind: "quoted" },
  { head: "Resolved problems, newest first:", kind: "problems" },
  { head: "Earlier commands, newest first: ", kind: "commands" },
  { head: "Files read: ", kind: "list" },
  { head: "Tools called: ", kind: "tools" },
  { head: "Other paths mentioned: ", kind: "list" },
];
const TASK = 0;
const LATER = 2;
const CHANGED = 3;
const OPEN = 4;
const LAST = 5;
const RESOLVED = 8;
const EARLIER = 9;
const READ = 10;
const OTHER = 12;

/** A summary's text read back: each section's items, and the lines that are none of them (a model's prose). */
interface Sections {
  items: string[][];
  prose: string[];
}

/** The text after a section's head: its trailing period and its "and 3 more" gone. */
function body(line: string, head: string): string {
  let rest = line.slice(head.length).trim();
  rest = rest.replace(/ and \d+ (?:more|earlier)\.?$/, "");
  if (rest.endsWith(".") && !rest.endsWith('"')) rest = rest.slice(0, -1);
  return rest;
}

function splitItems(rest: string, kind: Kind): string[] {
  if (rest === "") return [];
  switch (kind) {
    case "task":
    case "newest":
      return [rest];
    case "quoted":
      return rest.split(/"; "/).map((item, i, all) => `${i === 0 ? "" : '"'}${item}${i === all.length - 1 ? "" : '"'}`);
    case "commands":
      return rest.split("; ");
    case "list":
    case "tools": {
      const parts = rest.split(", ");
      const last = parts.pop() as string;
      const pair = last.split(" and ");
      return [...parts, ...(pair.length === 2 ? pair : [last])];
    }
    case "problems":
      return [];
  }
}

/** Reads a digest's text (a summary's text after its head) into its sections. */
export function readSections(text: string): Sections {
  const items: string[][] = SECTIONS.map(() => []);
  const prose: string[] = [];
  let current = -1;
  for (const line of text.split("\n")) {
    const at = SECTIONS.findIndex((s) => line.startsWith(s.head));
    if (at >= 0) {
      current = at;
      const section = SECTIONS[at] as (typeof SECTIONS)[number];
      (items[at] as string[]).push(...splitItems(body(line, section.head), section.kind));
      continue;
    }
    if (line.startsWith("- ") && current >= 0 && SECTIONS[current]?.kind === "problems") {
      if (!/^- and \d+ older/.test(line)) (items[current] as string[]).push(line);
      continue;
    }
    current = -1;
    if (line.trim() !== "") prose.push(line);
  }
  return { items, prose };
}

/** What a problem line is about: the part before its first ": ", without the command an open test names. */
function problemKey(line: string): string {
  const colon = line.indexOf(": ");
  return (colon < 0 ? line : line.slice(0, colon)).replace(/ \(`[^`]*`\)$| \([^()]*\)$/, "");
}

function unique(items: readonly string[], key: (item: string) => string = (s) => s): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `tool N times` / `tool once` items added up per tool, in order of first use. */
function addTools(items: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    const match = /^(.*) (?:(\d+) times|once)$/.exec(item);
    const name = match?.[1] ?? item;
    counts.set(name, (counts.get(name) ?? 0) + (match?.[2] !== undefined ? Number(match[2]) : 1));
  }
  return [...counts].map(([name, n]) => `${name} ${n === 1 ? "once" : `${n} times`}`);
}

/**
 * The sections of `older` and `newer` merged. With `problemsGiven`, the session's problem record
 * goes beside the summary, so neither text's problem sections are kept.
 */
export function mergeSections(older: Sections, newer: Sections, problemsGiven: boolean): Sections {
  const o = older.items;
  const n = newer.items;
  const at = (s: string[][], i: number) => s[i] as string[];
  const items: string[][] = SECTIONS.map((section, i) => {
    switch (section.kind) {
      case "list":
        return unique([...at(o, i), ...at(n, i)]);
      case "tools":
        return addTools([...at(o, i), ...at(n, i)]);
      case "quoted":
        return i === 1 ? unique([...at(o, i), ...at(n, i)]) : unique([...at(n, i), ...at(o, i)]);
      default:
        return [...at(n, i)];
    }
  });
  // The task is the first summary's; a task the newer text names (its span's first user message) was said later.
  const olderTask = at(o, TASK);
  const newerTask = at(n, TASK).filter((t) => !olderTask.includes(t));
  items[TASK] = olderTask.length > 0 ? olderTask.slice() : at(n, TASK).slice();
  if (olderTask.length > 0) items[LATER] = unique([...at(n, LATER), ...newerTask, ...at(o, LATER)]);
  // The newer last command wins; the older one becomes the newest of the earlier commands.
  if (at(n, LAST).length === 0) items[LAST] = at(o, LAST).slice();
  const demoted = at(n, LAST).length > 0 ? at(o, LAST) : [];
  items[EARLIER] = unique([...at(n, EARLIER), ...demoted, ...at(o, EARLIER)]);
  if (at(n, 6).length === 0) items[6] = at(o, 6).slice();
  // Problems: an older open one the newer text resolves (or lists again) goes; resolved ones gather.
  if (problemsGiven) {
    items[OPEN] = [];
    items[RESOLVED] = [];
  } else {
    const resolvedKeys = new Set(at(n, RESOLVED).map(problemKey));
    items[OPEN] = unique([...at(n, OPEN), ...at(o, OPEN).filter((l) => !resolvedKeys.has(problemKey(l)))], problemKey);
    items[RESOLVED] = unique([...at(n, RESOLVED), ...at(o, RESOLVED)], problemKey);
  }
  // A file changed is not also listed as read or only mentioned.
  const changed = new Set(at(items, CHANGED));
  items[READ] = at(items, READ).filter((p) => !changed.has(p));
  const read = new Set(at(items, READ));
  items[OTHER] = at(items, OTHER).filter((p) => !changed.has(p) && !read.has(p));
  return { items, prose: unique([...newer.prose, ...older.prose]) };
}

/** The sections as the digest writes them. */
export function writeSections(sections: Sections): string {
  const lines: string[] = [];
  SECTIONS.forEach(({ head, kind }, i) => {
    const items = sections.items[i] as string[];
    if (items.length === 0) return;
    if (kind === "problems") lines.push(head, ...items);
    else if (kind === "quoted" || kind === "commands") lines.push(head + items.join("; "));
    else if (kind === "list" || kind === "tools")
      lines.push(head + (items.length === 1 ? items[0] : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`));
    else lines.push(head + items[0]);
  });
  lines.push(...sections.prose);
  return lines.map((line) => (line.startsWith("- ") || /[:."]$/.test(line) ? line : `${line}.`)).join("\n");
}

/** Items per section the digest shows when it is not asked for all (its short list). */
const SHORT_LIST = 8;

/**
 * The merged text within `maxTokens`: when it is over, each section is first cut to the digest's
 * short list (the newest items of a newest-first section; every file changed stays), then the
 * oldest items of the least needed sections go first (a model's prose before any section), the
 * task last; undefined when even the task alone does not fit.
 */
export function boundSections(sections: Sections, maxTokens: number, counter: TokenCounter): string | undefined {
  let items = sections.items.map((s) => s.slice());
  const prose = sections.prose.slice();
  let text = writeSections({ items, prose });
  if (counter.count(text) <= maxTokens) return text;
  items = items.map((s, i) => (i === TASK || i === CHANGED ? s : s.slice(0, SHORT_LIST)));
  text = writeSections({ items, prose });
  while (counter.count(text) > maxTokens) {
    if (prose.length > 0) prose.pop();
    else {
      let from = items.length - 1;
      while (from > TASK && (items[from] as string[]).length === 0) from--;
      if (from === TASK) return undefined;
      (items[from] as string[]).pop();
    }
    text = writeSections({ items, prose });
  }
  return text;
}

/** `older` and `newer` (digest texts) folded into one within `maxTokens` (see mergeSections). */
export function foldSummaryTexts(
  older: string,
  newer: string,
  problemsGiven: boolean,
  maxTokens: number,
  counter: TokenCounter,
): string | undefined {
  return boundSections(mergeSections(readSections(older), readSections(newer), problemsGiven), maxTokens, counter);
}
