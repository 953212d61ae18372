// Builds the libFuzzer targets of test/fuzz/ (CMake, CTXWIN_FUZZ=ON, clang, ASan + UBSan) into
// build-fuzz/ and runs each for a fixed budget from its seed corpus (test/fuzz/corpus/<target>/).
// New inputs go to build-fuzz/corpus/<target>/, so the repository's seeds stay small. Exits non-zero
// on any finding (a crash, a sanitizer report, a broken invariant, a leak, a timeout); the input
// that caused it is kept as build-fuzz/findings/<target>/crash-*.
//
//   node scripts/fuzz.mjs                         every target, 30 s each, one per core at a time
//   CTXWIN_FUZZ_SECONDS=120 node scripts/fuzz.mjs tokenizer_fuzz
//   node scripts/fuzz.mjs --with-tests            first the GoogleTest suite under the same
//                                                 sanitizers, from the same build (CI: the core
//                                                 is compiled once for both)
//
// Prints one line per target: executions, executions per second, coverage, corpus size.
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./build.mjs";
import { compilerCacheCmakeOptions, compilerCacheEnv } from "./compiler-cache.mjs";

const seconds = Number(process.env.CTXWIN_FUZZ_SECONDS ?? 30);
const buildDir = join(root, "build-fuzz");
const seedsDir = join(root, "test", "fuzz", "corpus");

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) {
    console.error(`ctxwin fuzz: ${command} ${args.join(" ")} failed`);
    process.exit(1);
  }
}

// libFuzzer comes with clang (its runtime in libclang-rt-*-dev). As root (CI), install it.
const fuzzerLinks = () => {
  const probe = join(buildDir, "probe");
  mkdirSync(probe, { recursive: true });
  writeFileSync(join(probe, "probe.cc"), 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n');
  return (
    spawnSync("clang++", ["-fsanitize=fuzzer,address,undefined", join(probe, "probe.cc"), "-o", join(probe, "probe")], { stdio: "ignore" })
      .status === 0
  );
};
if (!fuzzerLinks()) {
  if (process.getuid?.() === 0 && spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "clang", "libclang-rt-dev"], { env });
  }
  if (!fuzzerLinks()) {
    console.error("ctxwin fuzz: clang with libFuzzer is missing: apt-get install -y clang libclang-rt-dev");
    process.exit(1);
  }
}
const args = process.argv.slice(2);
const withTests = args.includes("--with-tests");
run(
  "cmake",
  [
    "-S",
    ".",
    "-B",
    buildDir,
    "-DCMAKE_CXX_COMPILER=clang++",
    "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
    // -O2 as RelWithDebInfo, with line tables only (CMakeLists.txt: the sanitizer flags say why).
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG",
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG",
    "-DCTXWIN_FUZZ=ON",
    `-DCTXWIN_SANITIZE=${withTests ? "ON" : "OFF"}`,
    ...compilerCacheCmakeOptions(),
  ],
  {
    stdio: ["ignore", "ignore", "inherit"],
  },
);
run("cmake", ["--build", buildDir, "--parallel", "2"], { env: compilerCacheEnv() });
if (withTests) {
  console.log("== the C++ core's GoogleTest suite under AddressSanitizer + UndefinedBehaviorSanitizer ==");
  run("ctest", ["--test-dir", buildDir, "--output-on-failure", "--parallel", "2"], {
    env: { ...process.env, ASAN_OPTIONS: "detect_leaks=1:abort_on_error=1", UBSAN_OPTIONS: "print_stacktrace=1:halt_on_error=1" },
  });
}

const all = readdirSync(join(root, "test", "fuzz"))
  .filter((f) => f.endsWith("_fuzz.cc"))
  .map((f) => f.replace(/\.cc$/, ""));
const named = args.filter((arg) => !arg.startsWith("--"));
const targets = named.length > 0 ? named : all;
// Each tool-result input is compacted at up to dozens of bounds; smaller inputs keep its rate up.
const MAX_LEN = { tool_result_fuzz: 16384 };
// Targets run side by side, one per core: each is one single-threaded process, so on 2 cores the
// whole round takes half as long with the same seconds per target. CTXWIN_FUZZ_JOBS overrides it.
const jobs = Math.max(1, Number(process.env.CTXWIN_FUZZ_JOBS ?? availableParallelism()));

/** Runs one target for its budget; resolves to its row of the table (and its output on a finding). */
function fuzz(target) {
  const corpus = join(buildDir, "corpus", target);
  const findings = join(buildDir, "findings", target);
  mkdirSync(corpus, { recursive: true });
  mkdirSync(findings, { recursive: true });
  const seeds = join(seedsDir, target);
  if (existsSync(seeds)) cpSync(seeds, corpus, { recursive: true });
  console.log(`== ${target} (${seconds} s)`);
  const child = spawn(
    join(buildDir, target),
    [
      `-max_total_time=${seconds}`,
      "-timeout=20",
      "-rss_limit_mb=2048",
      `-max_len=${MAX_LEN[target] ?? 65536}`,
      "-print_final_stats=1",
      `-artifact_prefix=${findings}/`,
      corpus,
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ASAN_OPTIONS: "detect_leaks=1:abort_on_error=1", UBSAN_OPTIONS: "print_stacktrace=1:halt_on_error=1" },
    },
  );
  // Only the tail is needed (the final stats, or a report); keep at most the last 4 MB of it.
  let output = "";
  const keep = (chunk) => {
    output += chunk;
    if (output.length > 1 << 23) output = output.slice(-(1 << 22));
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  return new Promise((resolve) => {
    // A target that cannot start reports 'error' and may never report 'close': either settles it.
    let settled = false;
    const settle = (status) => {
      if (settled) return;
      settled = true;
      const stat = (name) => Number(new RegExp(`stat::${name}:\\s+(\\d+)`).exec(output)?.[1] ?? NaN);
      const cov = /cov: (\d+) ft: (\d+) corp: (\d+)/g;
      let last;
      for (let m; (m = cov.exec(output)); ) last = m;
      const row = {
        target,
        executions: stat("number_of_executed_units"),
        perSecond: stat("average_exec_per_sec"),
        coverage: Number(last?.[1] ?? NaN),
        corpus: Number(last?.[3] ?? NaN),
        ok: status === 0,
      };
      if (!row.ok)
        console.log(
          output
            .split("\n")
            .filter((line) => !/^#\d+/.test(line))
            .slice(-60)
            .join("\n"),
        );
      console.log(
        `${target}: ${row.ok ? "no finding" : "FINDING"}, ${row.executions} executions (${row.perSecond}/s), coverage ${row.coverage}, corpus ${row.corpus}`,
      );
      resolve(row);
    };
    child.on("error", (error) => {
      keep(`\n${error.message}\n`);
      settle(null);
    });
    child.on("close", settle);
  });
}

const results = new Array(targets.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(jobs, targets.length) }, async () => {
    while (next < targets.length) {
      const index = next++;
      results[index] = await fuzz(targets[index]);
    }
  }),
);
const failed = results.some((r) => !r.ok);

console.log("\n| target | executions | per second | coverage (edges) | corpus | finding |");
console.log("|---|---|---|---|---|---|");
for (const r of results)
  console.log(`| ${r.target} | ${r.executions} | ${r.perSecond} | ${r.coverage} | ${r.corpus} | ${r.ok ? "none" : "yes"} |`);
process.exit(failed ? 1 : 0);
