// The session report in a real browser: a 60-step agent session kept by MessageContextManager in
// a FileSessionStore, turned into a page by `ctxwin report` (the CLI, as a user runs it), opened
// from its file in headless Chromium (Debian's, through playwright-core). The page must load
// nothing (every request but the page itself fails the run), log no console error, and show its
// parts: the chart's five component areas, a marker per compaction that opens that compaction's
// details, the legend, the thresholds, the open problems; text from the log that looks like markup
// must stay text. A screenshot is taken and must not be blank: each component's colour is in it.
// Then a 1,000-request session's page: under 300 KB, and it renders with no error either.
// `ctxwin inspect --html` of one request is opened the same way. Ends with "N passed, M failed".
//
//   node test/web/report.mjs                                  (after a build: it imports dist/)
//   node test/web/report.mjs --screenshot docs/images/report.png
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { runCli } from "ctxwin/cli";
import { analyzeSession, renderReport } from "ctxwin/report";
import { FileSessionStore, MemorySessionStore } from "ctxwin/session";
import { LIMITS, MODEL, playSession } from "./report-session.mjs";
import { withChromium } from "./runtimes.mjs";

const { values } = parseArgs({ options: { screenshot: { type: "string" } } });
const MAX_BYTES = 300 * 1024;
/** The components' colours (ts/report/html.ts COLORS), which the screenshot must show. */
const COMPONENT_COLORS = ["#6b7280", "#7c3aed", "#d97706", "#0284c7", "#059669"];
// A step whose command and output are markup: the problem table shows them, and must show them as text.
const HOSTILE = {
  command: `npm run lint -- "<img src=x onerror=window.__pwned=1>"`,
  output: `Error: <script>window.__pwned=2</script> failed\nexit code 1`,
};

let passed = 0;
let failed = 0;
async function check(name, body) {
  try {
    await body();
    passed++;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/** A memory stream that keeps what the CLI writes. */
function sink() {
  const chunks = [];
  return { write: (c) => (chunks.push(String(c)), true), text: () => chunks.join("") };
}

/** Opens a page from its file; resolves with the tab and what went wrong while it loaded (errors, requests). */
async function open(context, file) {
  const tab = await context.newPage();
  await tab.setViewportSize({ width: 1040, height: 900 });
  const problems = [];
  const url = pathToFileURL(file).href;
  tab.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  tab.on("pageerror", (e) => problems.push(`page error: ${e}`));
  tab.on("request", (r) => r.url() !== url && problems.push(`request: ${r.url()}`));
  await tab.goto(url, { waitUntil: "load" });
  return { tab, problems };
}

/** The colours of a PNG's pixels, counted, decoded by the browser itself in a blank page. */
async function colours(context, png) {
  const tab = await context.newPage();
  try {
    return await tab.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext("2d");
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, img.width, img.height).data;
      const counts = {};
      for (let i = 0; i < data.length; i += 4) {
        const hex = `#${[data[i], data[i + 1], data[i + 2]].map((v) => v.toString(16).padStart(2, "0")).join("")}`;
        counts[hex] = (counts[hex] ?? 0) + 1;
      }
      return counts;
    }, png.toString("base64"));
  } finally {
    await tab.close();
  }
}

const work = mkdtempSync(join(tmpdir(), "ctxwin-report-"));
try {
  const store = new FileSessionStore({ directory: join(work, "sessions"), fsync: false });
  await playSession(store, "agent", 60, { hostile: HOSTILE });
  const logFile = join(work, "sessions", "agent.jsonl");
  const analysis = analyzeSession(await store.read("agent"), { model: MODEL, limits: LIMITS });
  const pageFile = join(work, "report.html");
  const err = sink();
  const code = await runCli(
    [
      "report",
      logFile,
      "-o",
      pageFile,
      "--model",
      MODEL,
      "--window",
      String(LIMITS.maxTokens),
      "--output-tokens",
      String(LIMITS.maxOutputTokens),
      "--title",
      "60-step agent <session>",
    ],
    { stdout: sink(), stderr: err, stdin: process.stdin, env: {} },
  );
  if (code !== 0) throw new Error(`ctxwin report exited ${code}: ${err.text()}`);
  console.log(
    `report of ${analysis.requests.length} requests, ${analysis.compactions.length} compactions: ${statSync(pageFile).size} bytes`,
  );

  const big = new MemorySessionStore();
  await playSession(big, "long", 999, { compactEvery: 0 });
  const bigHtml = renderReport(await big.read("long"), { model: MODEL, limits: LIMITS });
  const bigFile = join(work, "long.html");
  writeFileSync(bigFile, bigHtml);

  const requestFile = join(work, "request.html");
  const inspectCode = await runCli(["inspect", logFile, "--window", String(LIMITS.maxTokens), "--html", "-o", requestFile], {
    stdout: sink(),
    stderr: sink(),
    stdin: process.stdin,
    env: {},
  });
  if (inspectCode !== 0) throw new Error(`ctxwin inspect --html exited ${inspectCode}`);

  await withChromium(async (context) => {
    const { tab, problems } = await open(context, pageFile);
    await check("the 60-step report shows its parts", async () => {
      const dom = await tab.evaluate(() => ({
        title: document.querySelector("h1")?.textContent,
        areas: [...document.querySelectorAll("#chart path.area")].map((p) => p.getAttribute("data-component")),
        markers: document.querySelectorAll("#chart .marker").length,
        details: document.querySelectorAll("details.compaction").length,
        legend: [...document.querySelectorAll("#legend li")].map((li) => li.textContent),
        thresholds: document.querySelectorAll("#chart .threshold").length,
        problems: document.querySelectorAll("#problem-table tbody tr").length,
        series: [...document.querySelectorAll("svg.series")].map((s) => s.id),
        chartBox: document.getElementById("chart")?.getBoundingClientRect().toJSON(),
      }));
      expect(dom.title === "60-step agent <session>", `title ${dom.title}`);
      expect(dom.areas.join() === "messages,tool results,summary,task,system", `areas ${dom.areas}`);
      expect(analysis.compactions.length >= 5, `only ${analysis.compactions.length} compactions`);
      expect(dom.markers === analysis.compactions.length, `${dom.markers} markers for ${analysis.compactions.length} compactions`);
      expect(dom.details === analysis.compactions.length, `${dom.details} details for ${analysis.compactions.length} compactions`);
      for (const name of ["system", "task", "summary", "tool results", "messages", "window", "prompt budget", "compaction (click)"])
        expect(dom.legend.includes(name), `legend lacks ${name}: ${dom.legend}`);
      expect(dom.thresholds === 4, `${dom.thresholds} threshold lines`);
      expect(dom.problems === analysis.problems.length && dom.problems >= 3, `${dom.problems} problem rows`);
      expect(dom.series.join() === "dollars,cached,problems", `series ${dom.series}`);
      expect(dom.chartBox.width > 800 && dom.chartBox.height > 250, `chart box ${JSON.stringify(dom.chartBox)}`);
    });
    await check("text from the log that looks like markup stays text", async () => {
      const dom = await tab.evaluate(() => ({
        pwned: window.__pwned,
        elements: document.querySelectorAll("#problem-table img, #problem-table script, h1 session").length,
        text: document.getElementById("problem-table")?.textContent ?? "",
      }));
      expect(dom.pwned === undefined, "a script from the log ran");
      expect(dom.elements === 0, "markup from the log became elements");
      expect(
        dom.text.includes("<img src=x onerror=window.__pwned=1>") && dom.text.includes("<script>window.__pwned=2</script>"),
        "the markup is not shown as text",
      );
    });
    await check("a marker opens its compaction's units and ids; the chart reads out a request", async () => {
      const n = Math.min(3, analysis.compactions.length);
      await tab.click(`#chart .marker[data-compaction="${n}"]`);
      const opened = await tab.evaluate((n) => {
        const d = document.getElementById(`compaction-${n}`);
        return { open: d?.open, ids: d?.querySelector(".unit code")?.textContent ?? "", hash: location.hash };
      }, n);
      const first = analysis.compactions[n - 1].units.find((u) => u.ids.length > 0);
      expect(opened.open === true, "the details did not open");
      expect(opened.hash === `#compaction-${n}`, `hash ${opened.hash}`);
      expect(first && opened.ids.split(" ")[0] === first.ids[0], `ids ${opened.ids.slice(0, 80)}`);
      // The click scrolled to the details: back to the chart, then point at a request.
      await tab.evaluate(() => window.scrollTo(0, 0));
      const box = await tab.locator("#chart").boundingBox();
      await tab.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.6, { steps: 4 });
      const readout = await tab.textContent("#readout");
      expect(/^Request \d+: [\d,]+ tokens \(system/.test(readout), `readout ${readout}`);
    });
    await check("the screenshot is not blank: each component's colour is in it", async () => {
      await tab.evaluate(() => window.scrollTo(0, 0));
      const png = await tab.screenshot({
        clip: { x: 0, y: 0, width: 1040, height: 640 },
        ...(values.screenshot ? { path: resolve(values.screenshot) } : {}),
      });
      const counts = await colours(context, png);
      for (const colour of COMPONENT_COLORS) expect((counts[colour] ?? 0) > 50, `${colour}: ${counts[colour] ?? 0} pixels`);
      expect(Object.keys(counts).length > 20, `${Object.keys(counts).length} colours`);
      if (values.screenshot) console.log(`     screenshot: ${values.screenshot} (${png.length} bytes)`);
    });
    await check("no console error, no request beyond the page", async () => expect(problems.length === 0, problems.join("; ")));
    await tab.close();

    await check(`a 1,000-request session's page is under 300 KB and renders with no error`, async () => {
      const bytes = Buffer.byteLength(bigHtml);
      expect(bytes < MAX_BYTES, `${bytes} bytes`);
      const { tab: bigTab, problems: bigProblems } = await open(context, bigFile);
      const dom = await bigTab.evaluate(() => ({
        requests: document.getElementById("chart")?.getAttribute("data-requests"),
        markers: document.querySelectorAll("#chart .marker").length,
      }));
      await bigTab.close();
      expect(dom.requests === "1000", `requests ${dom.requests}`);
      expect(dom.markers > 10, `${dom.markers} markers`);
      expect(bigProblems.length === 0, bigProblems.join("; "));
      console.log(`     ${bytes} bytes, ${dom.markers} compactions`);
    });

    await check("ctxwin inspect --html shows one request", async () => {
      const { tab: one, problems: oneProblems } = await open(context, requestFile);
      const dom = await one.evaluate(() => ({
        parts: document.querySelectorAll("#window-bar .part").length,
        rows: document.querySelectorAll("#components tbody tr").length,
        largest: document.querySelectorAll("#largest tbody tr").length,
        next: document.getElementById("next-trim")?.textContent ?? "",
      }));
      await one.close();
      expect(dom.parts >= 3 && dom.rows >= 7 && dom.largest >= 1, JSON.stringify(dom));
      expect(/^(Not due|Due)/.test(dom.next), dom.next);
      expect(oneProblems.length === 0, oneProblems.join("; "));
    });
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
