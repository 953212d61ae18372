// Writes examples/data/billing-request.json: a 69-message tool session (the OpenAI chat request an
// agent sends after its 33rd step) in which a billing agent looks for the cause of a duplicate
// charge. Its step 17 runs the billing tests, which fail with
// `Error: duplicate charge detected for ch_17_5`, a failure no later step resolves; step 29's build
// fails with ENOSPC and step 31's build of the same command passes. `ctxwin compact` is measured on
// it at several targets (docs/compaction.md), and the compaction tests read it.
// Deterministic: running it again gives the same file.
//
//   node scripts/make-billing-request.mjs
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "examples", "data", "billing-request.json");

let seed = 1717;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(rand() * list.length)];

function sourceFile(path, lines) {
  const name = path
    .split("/")
    .pop()
    .replace(/\..*$/, "")
    .replace(/-(\w)/g, (_, c) => c.toUpperCase());
  const body = [`// ${path}`, `import { Money } from "../util/money";`, `import { ChargeId, CustomerId } from "./ids";`, ""];
  for (let i = 0; i < lines; i++) {
    const k = Math.floor(rand() * 1000);
    body.push(
      pick([
        `export async function ${name}Step${i}(charge: Charge, ctx: LedgerContext): Promise<Money> {`,
        `  const key = ctx.idempotencyKey ?? \`\${charge.customer}:\${charge.amount}:${k}\`;`,
        `  if (charge.amount.cents <= 0) throw new RangeError("charge ${k} must be positive");`,
        `  await ctx.queue.publish("charge.created", { id: charge.id, attempt: ctx.attempt ?? 1 });`,
        `  const existing = await ctx.store.findByKey(key); // see BILL-${k}`,
        `  log.debug("ledger entry", { id: charge.id, customer: charge.customer, cents: charge.amount.cents });`,
        `  return Money.cents(charge.amount.cents * ${(k % 5) + 1});`,
        `}`,
        `// TODO(${pick(["ines", "kofi", "mei"])}): retries must reuse the original idempotency key`,
      ]),
    );
  }
  return body.join("\n");
}

function charges(month, count) {
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      id: `ch_${month}_${i}`,
      customer: "cus_88",
      amount: { cents: 1999 + ((i * 37) % 400), currency: "EUR" },
      status: pick(["succeeded", "succeeded", "succeeded", "refunded"]),
      idempotency_key: `cus_88:${1999 + ((i * 37) % 400)}:${Math.floor(rand() * 10000)}`,
      created: `2024-${month}-${String(1 + (i % 28)).padStart(2, "0")}T${String(i % 24).padStart(2, "0")}:14:07Z`,
    })),
    null,
    1,
  );
}

function payoutLog(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) {
    const ch = `ch_${10 + (i % 20)}_${i % 7}`;
    out.push(
      pick([
        `2024-03-${String(1 + (i % 28)).padStart(2, "0")}T09:${String(i % 60).padStart(2, "0")}:11Z INFO payout batch=${400 + i} charge=${ch} cents=${1999 + (i % 300)} status=paid`,
        `2024-03-${String(1 + (i % 28)).padStart(2, "0")}T09:${String(i % 60).padStart(2, "0")}:12Z INFO retry scheduled charge=${ch} attempt=2 key=regenerated`,
        `2024-03-${String(1 + (i % 28)).padStart(2, "0")}T09:${String(i % 60).padStart(2, "0")}:13Z DEBUG webhook charge.succeeded charge=${ch} latency_ms=${40 + (i % 90)}`,
      ]),
    );
  }
  return out.join("\n");
}

function testRun(failing) {
  const lines = [" RUN  v1.6.0 /srv/payments", ""];
  const names = [
    "creates a charge",
    "refunds a charge",
    "retries a failed charge",
    "reconciles payouts",
    "rejects a negative amount",
    "keeps the idempotency key",
  ];
  for (let i = 0; i < 48; i++) lines.push(` ✓ test/billing.test.ts > ledger > ${names[i % names.length]} #${i} (${2 + (i % 9)} ms)`);
  if (failing) {
    lines.push(" × test/billing.test.ts > ledger > rejects a duplicate charge (7 ms)", "");
    lines.push("FAIL test/billing.test.ts > ledger > rejects a duplicate charge");
    lines.push("Error: duplicate charge detected for ch_17_5");
    lines.push("    at Ledger.charge (src/billing/ledger.ts:88:11)");
    lines.push("    at retryCharge (src/billing/retry.ts:41:18)");
    lines.push("    at test/billing.test.ts:212:5", "");
    lines.push(" Test Files  1 failed (1)", "      Tests  1 failed | 48 passed (49)", "   Duration  3.42s", "exit code 1");
  } else {
    lines.push("", " Test Files  1 passed (1)", "      Tests  48 passed (48)", "   Duration  3.18s", "exit code 0");
  }
  return lines.join("\n");
}

const steps = [
  [
    "I'll start with the billing module's layout.",
    "list_files",
    { path: "src/billing" },
    "ledger.ts\ncharges.ts\nretry.ts\nidempotency.ts\nwebhooks.ts\npayouts.ts\nqueue.ts\nids.ts",
  ],
  ["The ledger is where charges are recorded.", "read_file", { path: "src/billing/ledger.ts" }, sourceFile("src/billing/ledger.ts", 200)],
  ["Now how charges are created.", "read_file", { path: "src/billing/charges.ts" }, sourceFile("src/billing/charges.ts", 90)],
  [
    "Where is the idempotency key used?",
    "search_code",
    { pattern: "idempotencyKey" },
    "src/billing/ledger.ts:41:  const key = ctx.idempotencyKey ?? fallbackKey(charge);\nsrc/billing/retry.ts:37:  const ctx = { ...base, idempotencyKey: undefined, attempt: attempt + 1 };\nsrc/billing/charges.ts:12:  idempotencyKey: request.headers['idempotency-key'],",
  ],
  [
    "Building first to know the baseline.",
    "run_command",
    { command: "npm run build" },
    "> payments@3.2.0 build\n> tsc -p tsconfig.build.json\n\nbuild ok in 4.2s\nexit code 0",
  ],
  ["The billing tests.", "read_file", { path: "test/billing.test.ts" }, sourceFile("test/billing.test.ts", 110)],
  ["Running them as they are.", "run_tests", { filter: "billing" }, testRun(false)],
  ["Listing cus_88's March charges.", "list_charges", { customer: "cus_88", month: "2024-03" }, charges("03", 48)],
  ["The idempotency helper.", "read_file", { path: "src/billing/idempotency.ts" }, sourceFile("src/billing/idempotency.ts", 60)],
  [
    "Who reads chargeId?",
    "search_code",
    { pattern: "chargeId" },
    Array.from(
      { length: 30 },
      (_, i) =>
        `src/billing/${pick(["ledger", "retry", "webhooks", "payouts"])}.ts:${10 + i * 7}:  const chargeId = ChargeId.parse(input.id${i % 3 ? "" : " ?? fallback"});`,
    ).join("\n"),
  ],
  ["The retry path regenerates the key.", "read_file", { path: "src/billing/retry.ts" }, sourceFile("src/billing/retry.ts", 80)],
  [
    "Retries should keep the original key: editing retry.ts.",
    "edit_file",
    { path: "src/billing/retry.ts", find: "idempotencyKey: undefined", replace: "idempotencyKey: base.idempotencyKey" },
    "Edited src/billing/retry.ts: 1 replacement.",
  ],
  ["Tests after the edit.", "run_tests", { filter: "billing" }, testRun(false)],
  ["The payout log for March.", "read_file", { path: "logs/payouts-2024-03.log" }, payoutLog(260)],
  [
    "Looking for ch_17 in the code and fixtures.",
    "search_code",
    { pattern: "ch_17" },
    'test/fixtures/charges.json:212:    "id": "ch_17_5",\ntest/fixtures/charges.json:219:    "id": "ch_17_5",\nlogs/payouts-2024-03.log:88: retry scheduled charge=ch_17_5 attempt=2 key=regenerated',
  ],
  [
    "Adding a test for the duplicate.",
    "edit_file",
    {
      path: "test/billing.test.ts",
      find: 'describe("ledger", () => {',
      replace: 'describe("ledger", () => {\n  it("rejects a duplicate charge", async () => { /* replays ch_17_5 */ });',
    },
    "Edited test/billing.test.ts: 1 replacement.",
  ],
  ["Running the billing tests with the new test.", "run_tests", { filter: "billing" }, testRun(true)],
  ["Back to the ledger's duplicate check.", "read_file", { path: "src/billing/ledger.ts" }, sourceFile("src/billing/ledger.ts", 200)],
  ["Webhooks may charge again.", "read_file", { path: "src/billing/webhooks.ts" }, sourceFile("src/billing/webhooks.ts", 220)],
  [
    "Where is retryCharge called?",
    "search_code",
    { pattern: "retryCharge" },
    "src/billing/retry.ts:12: export async function retryCharge(charge: Charge, base: LedgerContext) {\nsrc/billing/webhooks.ts:77:   await retryCharge(event.charge, ctx);\nsrc/billing/queue.ts:54:   await retryCharge(job.charge, ctx);",
  ],
  [
    "Making the ledger compare keys before amounts.",
    "edit_file",
    { path: "src/billing/ledger.ts", find: "findByAmount(charge)", replace: "findByKey(key)" },
    "Edited src/billing/ledger.ts: 1 replacement.",
  ],
  ["Lint.", "run_command", { command: "npm run lint" }, "> payments@3.2.0 lint\n> eslint src test\n\n0 problems\nexit code 0"],
  ["The payouts module.", "read_file", { path: "src/billing/payouts.ts" }, sourceFile("src/billing/payouts.ts", 90)],
  ["April's charges, to compare.", "list_charges", { customer: "cus_88", month: "2024-04" }, charges("04", 30)],
  [
    "The billing docs.",
    "read_file",
    { path: "docs/billing.md" },
    "# Billing\n\nCharges are recorded once per idempotency key. Retries must pass the key of the first attempt.\n".repeat(12),
  ],
  [
    "Any dedupe helper?",
    "search_code",
    { pattern: "dedupe" },
    "src/billing/queue.ts:61:  // dedupe by job id only, not by idempotency key",
  ],
  ["The queue.", "read_file", { path: "src/billing/queue.ts" }, sourceFile("src/billing/queue.ts", 100)],
  [
    "Dedupe queue jobs by idempotency key.",
    "edit_file",
    { path: "src/billing/queue.ts", find: "dedupeBy: 'jobId'", replace: "dedupeBy: 'idempotencyKey'" },
    "Edited src/billing/queue.ts: 1 replacement.",
  ],
  [
    "Building.",
    "run_command",
    { command: "npm run build" },
    "> payments@3.2.0 build\n> tsc -p tsconfig.build.json\n\nError: ENOSPC: no space left on device, write '/tmp/build/ledger.js'\n    at writeFileSync (node:fs:2346:3)\n    at emitFile (node_modules/typescript/lib/tsc.js:1234:9)\nexit code 1",
  ],
  ["The disk is full: clearing the build cache.", "run_command", { command: "rm -rf /tmp/build/.cache" }, "exit code 0"],
  [
    "Building again.",
    "run_command",
    { command: "npm run build" },
    "> payments@3.2.0 build\n> tsc -p tsconfig.build.json\n\nbuild ok in 4.4s\nexit code 0",
  ],
  [
    "Reading the ledger once more around line 88.",
    "read_file",
    { path: "src/billing/ledger.ts" },
    sourceFile("src/billing/ledger.ts", 200),
  ],
  [
    "Who passes idempotencyKey: undefined still?",
    "search_code",
    { pattern: "idempotencyKey: undefined" },
    "src/billing/webhooks.ts:74:   const ctx = { ...base, idempotencyKey: undefined };",
  ],
];

const tool = (name, description, properties) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required: Object.keys(properties) } },
});
const tools = [
  tool("list_files", "List the files of a directory.", { path: { type: "string" } }),
  tool("read_file", "Read a file.", { path: { type: "string" } }),
  tool("search_code", "Search the repository for a pattern.", { pattern: { type: "string" } }),
  tool("run_command", "Run a shell command.", { command: { type: "string" } }),
  tool("run_tests", "Run the tests whose names match a filter.", { filter: { type: "string" } }),
  tool("edit_file", "Replace text in a file.", { path: { type: "string" }, find: { type: "string" }, replace: { type: "string" } }),
  tool("list_charges", "List a customer's charges for a month.", { customer: { type: "string" }, month: { type: "string" } }),
];

const messages = [
  {
    role: "system",
    content:
      "You are a careful payments engineer. Read before you edit, run the billing tests after every change, and say what you changed.",
  },
  {
    role: "user",
    content:
      "Customer cus_88 was charged twice for ch_17_5 in March. Find why duplicate charges slip through and fix it, without changing the public API of src/billing/ledger.ts. Run the billing tests before you finish.",
  },
];
steps.forEach(([thought, name, args, result], i) => {
  const id = `call_${i + 1}`;
  messages.push({
    role: "assistant",
    content: thought,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
  messages.push({ role: "tool", tool_call_id: id, content: result });
});
messages.push({
  role: "assistant",
  content:
    "webhooks.ts still drops the key on retry, which is how ch_17_5 was charged twice. Next: pass base.idempotencyKey in src/billing/webhooks.ts:74, then run the billing tests.",
});

writeFileSync(out, `${JSON.stringify({ model: "gpt-4o", messages, tools }, null, 1)}\n`);
console.log(`wrote ${out}: ${messages.length} messages, ${tools.length} tools`);
