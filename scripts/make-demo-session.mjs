// Writes examples/data/session.json: a recorded 48-iteration coding-agent session (the agent finds
// and fixes a date-parsing bug in an invoice exporter) that `npm run demo` replays offline.
// Deterministic: running it again gives the same file.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "examples", "data", "session.json");

let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(rand() * list.length)];

const modules = [
  "src/export/invoice-exporter.ts",
  "src/export/csv-writer.ts",
  "src/export/pdf-writer.ts",
  "src/billing/invoice.ts",
  "src/billing/line-item.ts",
  "src/billing/tax.ts",
  "src/util/dates.ts",
  "src/util/money.ts",
  "src/util/locale.ts",
  "src/api/routes/invoices.ts",
  "src/api/middleware/auth.ts",
  "src/db/invoice-repo.ts",
  "test/export/invoice-exporter.test.ts",
  "test/util/dates.test.ts",
];

function sourceFile(path, lines) {
  const name = path
    .split("/")
    .pop()
    .replace(/\..*$/, "")
    .replace(/-(\w)/g, (_, c) => c.toUpperCase());
  const body = [`// ${path}`, `import { formatMoney } from "../util/money";`, `import { parseIsoDate } from "../util/dates";`, ""];
  for (let i = 0; i < lines; i++) {
    const k = Math.floor(rand() * 1000);
    body.push(
      pick([
        `export function ${name}Step${i}(input: Invoice): number {`,
        `  const total = input.items.reduce((sum, item) => sum + item.amount * ${(k % 7) + 1}, 0);`,
        `  if (!input.issuedAt) throw new Error("invoice ${k} has no issue date");`,
        `  return Math.round(total * 100) / 100; // cents, see ticket BILL-${k}`,
        `  const due = parseIsoDate(input.dueDate ?? input.issuedAt);`,
        `  log.debug("exporting invoice", { id: input.id, lines: input.items.length });`,
        `}`,
        `// TODO(${pick(["ana", "li", "sam"])}): handle credit notes (negative totals)`,
      ]),
    );
  }
  return body.join("\n");
}

function testOutput(failing) {
  const lines = [`> vitest run test/export`, ""];
  const suites = ["invoice-exporter.test.ts", "dates.test.ts", "csv-writer.test.ts"];
  for (const s of suites)
    lines.push(` ${failing && s !== "csv-writer.test.ts" ? "FAIL" : "✓"} test/${s.startsWith("dates") ? "util" : "export"}/${s}`);
  if (failing) {
    lines.push("", " FAIL  test/export/invoice-exporter.test.ts > exports due dates in the customer's time zone");
    lines.push("AssertionError: expected '2024-03-31' to be '2024-04-01'");
    lines.push("  at src/util/dates.ts:41:18", "  at src/export/invoice-exporter.ts:88:22");
  }
  lines.push("", `Tests  ${failing ? failing : 0} failed | ${212 - failing} passed (212)`, `Duration  ${(3 + rand() * 2).toFixed(2)}s`);
  return lines.join("\n");
}

const plan = [];
const step = (thought, calls) => plan.push({ thought, calls });
step("Start by looking at the repository layout.", [["list_files", { path: "src" }]]);
step("Run the failing test suite to see the error.", [["run_tests", { filter: "export" }]]);
for (const path of modules.slice(0, 8)) step(`Read ${path} to understand the export path.`, [["read_file", { path }]]);
step("Search for the date parser.", [["search_code", { query: "parseIsoDate" }]]);
step("Read the date utility.", [["read_file", { path: "src/util/dates.ts" }]]);
step("Check the git history of dates.ts.", [["run_command", { command: "git log --oneline -5 -- src/util/dates.ts" }]]);
step("Read a file that does not exist (typo).", [["read_file", { path: "src/util/date.ts" }]]);
for (const path of modules.slice(8)) step(`Read ${path}.`, [["read_file", { path }]]);
step("Search for time zone handling.", [["search_code", { query: "timeZone" }]]);
step("Reproduce with a focused test.", [["run_tests", { filter: "dates" }]]);
step("Inspect the locale settings.", [
  ["read_file", { path: "src/util/locale.ts" }],
  ["search_code", { query: "Intl.DateTimeFormat" }],
]);
step("Try a first fix in dates.ts.", [
  ["edit_file", { path: "src/util/dates.ts", find: "new Date(value)", replace: "parseInZone(value, zone)" }],
]);
step("Run the tests after the first fix.", [["run_tests", { filter: "export" }]]);
step("The helper is missing; add it.", [
  [
    "edit_file",
    {
      path: "src/util/dates.ts",
      find: "export function parseIsoDate",
      replace: "export function parseInZone(value: string, zone: string): Date { /* ... */ }\nexport function parseIsoDate",
    },
  ],
]);
step("Run the tests again.", [["run_tests", { filter: "export" }]]);
for (let i = 0; i < 8; i++) {
  const path = pick(modules);
  step(`Review ${path} for other callers of parseIsoDate.`, [
    ["read_file", { path }],
    ["search_code", { query: `parseIsoDate ${path.split("/").pop()}` }],
  ]);
}
step("Update the exporter to pass the customer's zone.", [
  [
    "edit_file",
    {
      path: "src/export/invoice-exporter.ts",
      find: "parseIsoDate(input.dueDate)",
      replace: "parseIsoDate(input.dueDate, customer.timeZone)",
    },
  ],
]);
step("Run the full suite.", [["run_tests", { filter: "" }]]);
step("Lint the change.", [["run_command", { command: "npx eslint src/util/dates.ts src/export/invoice-exporter.ts" }]]);
step("Check the diff.", [["run_command", { command: "git diff --stat" }]]);
step("Add a regression test.", [
  [
    "edit_file",
    {
      path: "test/util/dates.test.ts",
      find: 'describe("parseIsoDate"',
      replace: 'it("keeps the customer\'s calendar day", () => { /* ... */ });\ndescribe("parseIsoDate"',
    },
  ],
]);
step("Run the new test.", [["run_tests", { filter: "dates" }]]);
step("Run everything once more.", [["run_tests", { filter: "" }]]);

let testsFixed = false;
let helperAdded = false;
const iterations = plan.map(({ thought, calls }, index) => ({
  iteration: index + 1,
  thought,
  calls: calls.map(([toolName, args], k) => {
    let result;
    let error;
    switch (toolName) {
      case "list_files":
        result = { files: modules };
        break;
      case "read_file":
        if (!modules.includes(args.path)) error = `ENOENT: no such file or directory, open '${args.path}'`;
        else result = sourceFile(args.path, 30 + Math.floor(rand() * 40));
        break;
      case "search_code":
        result = Array.from(
          { length: 4 + Math.floor(rand() * 8) },
          () => `${pick(modules)}:${1 + Math.floor(rand() * 120)}: const due = parseIsoDate(input.dueDate); // ${args.query}`,
        ).join("\n");
        break;
      case "run_command":
        result = args.command.startsWith("git log")
          ? "a1b2c3d fix: round tax per line\n9f8e7d6 feat: export due dates\n5c4b3a2 chore: bump date-fns to 3.6.0"
          : args.command.startsWith("git diff")
            ? " src/util/dates.ts | 24 +++++++++++++++---\n src/export/invoice-exporter.ts | 4 ++--\n 2 files changed, 22 insertions(+), 6 deletions(-)"
            : "0 problems";
        break;
      case "edit_file":
        if (args.find === "new Date(value)") result = { path: args.path, replaced: 1 };
        else if (args.replace.includes("parseInZone")) {
          helperAdded = true;
          result = { path: args.path, replaced: 1 };
        } else {
          testsFixed = helperAdded;
          result = { path: args.path, replaced: 1 };
        }
        break;
      case "run_tests":
        if (index + 1 === plan.findIndex((p) => p.thought === "Run the tests after the first fix.") + 1 && !helperAdded) {
          error = "TypeScript error TS2304: Cannot find name 'parseInZone' (src/util/dates.ts:41:12)";
        } else {
          result = testOutput(testsFixed ? 0 : 3);
        }
        break;
    }
    return { toolCallId: `call_${index + 1}_${k + 1}`, toolName, args, ...(error ? { error } : { result }) };
  }),
}));

const session = {
  task: "Invoices exported to CSV show the due date one day early for customers west of UTC. Find and fix the bug.",
  finalAnswer:
    "Fixed: parseIsoDate in src/util/dates.ts parsed due dates in UTC; it now takes the customer's time zone (parseInZone), the exporter passes customer.timeZone, and test/util/dates.test.ts covers the case. All 212 tests pass.",
  iterations,
};
writeFileSync(out, `${JSON.stringify(session, null, 1)}\n`);
console.log(`wrote ${out}: ${iterations.length} iterations, ${iterations.reduce((n, it) => n + it.calls.length, 0)} tool calls`);
