// `npm run accuracy`: how close the approximations come to the exact count, per corpus category.
// Total error = (approximate total - exact total) / exact total; document error = mean of
// |approximate - exact| / exact over the category's documents.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TiktokenCounter } from "ctxwin";
import { ApproximateCounter, type EncodingName } from "ctxwin/tokens";

// ../shared/corpus beside the repository (a git worktree one folder deeper finds it one further up).
const CORPUS =
  [join(import.meta.dirname, "..", "..", "shared", "corpus"), join(import.meta.dirname, "..", "..", "..", "shared", "corpus")].find((dir) =>
    existsSync(join(dir, "prose.txt.xz")),
  ) ?? join(import.meta.dirname, "..", "..", "shared", "corpus");
const read = (name: string) => execFileSync("xz", ["-dc", join(CORPUS, name)], { maxBuffer: 1 << 30 }).toString("utf8");

const approximations = [
  ["chars / 3.5 (SPEC-08)", new ApproximateCounter({ charsPerToken: 3.5 })],
  ["chars / 4 (seeds 000, 004)", new ApproximateCounter({ charsPerToken: 4 })],
  ["words x 1.3 (seed 001)", new ApproximateCounter({ tokensPerWord: 1.3 })],
] as const;

const categories: Array<[string, string[]]> = [
  ...["prose", "code", "cjk", "euro"].map((c): [string, string[]] => [
    c,
    read(`${c}.txt.xz`)
      .split("\n\n")
      .filter((d) => d.trim() !== ""),
  ]),
  ["chat", JSON.parse(read("chat.json.xz")) as string[]],
];

for (const encoding of ["cl100k_base", "o200k_base"] as EncodingName[]) {
  const exact = new TiktokenCounter({ encoding });
  console.log(`\n### Approximations vs exact ${encoding} counts (total error / mean per-document error)\n`);
  console.log(`| category | exact tokens | ${approximations.map(([name]) => name).join(" | ")} |`);
  console.log(`|---|---|${approximations.map(() => "---").join("|")}|`);
  for (const [category, docs] of categories) {
    const exactCounts = exact.countMany(docs);
    const exactTotal = exactCounts.reduce((a, b) => a + b, 0);
    const cells = approximations.map(([, counter]) => {
      const counts = counter.countMany(docs);
      const total = counts.reduce((a, b) => a + b, 0);
      let docError = 0;
      let n = 0;
      counts.forEach((c, i) => {
        const e = exactCounts[i] as number;
        if (e > 0) {
          docError += Math.abs(c - e) / e;
          n++;
        }
      });
      const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(0)}%`;
      return `${pct((total - exactTotal) / exactTotal)} / ${((docError / n) * 100).toFixed(0)}%`;
    });
    console.log(`| ${category} | ${exactTotal.toLocaleString("en-US")} | ${cells.join(" | ")} |`);
  }
}
