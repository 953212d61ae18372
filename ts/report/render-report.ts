// renderReport: a session's log as one self-contained HTML page a developer reads at a glance.
// The page holds the composition chart, the compactions (each marker opens its units and ids),
// the cache and dollars per request, and the open problems over time; a few lines of inline
// script show a request's figures under the pointer and open a compaction's details from its
// marker. Without the script everything is still there (the markers are links to the details).
import { compositionChart, seriesChart } from "./chart.js";
import { COLORS, dollars, escapeHtml, legendItem, num, page, pct } from "./html.js";
import { analyzeSession, REPORT_COMPONENTS, type ReportOptions, type SessionAnalysis } from "./session-analysis.js";
import type { SessionEntry, SessionRecord } from "../session/store.js";

/**
 * The report of a session's log (its records as `store.read(id)` returns them, or its entries)
 * as one HTML page: no network, no server, nothing to install to open it.
 */
export function renderReport(log: Iterable<SessionRecord | SessionEntry>, options: ReportOptions): string {
  return renderAnalysis(analyzeSession(log, options));
}

const KIND_WORDS = {
  trimmed: "trimmed",
  rewritten: "compacted or cleared in place",
  summarized: "summarized",
  cleared: "cleared (/clear or an import)",
};

function stats(a: SessionAnalysis): string {
  const last = a.requests[a.requests.length - 1];
  const peak = a.requests.reduce((m, r) => Math.max(m, r.total), 0);
  const open = last?.openProblems ?? 0;
  const items: Array<[string, string]> = [
    ["requests", num(a.requests.length)],
    ["compactions", num(a.compactions.length)],
    ["peak", `${num(peak)} (${pct(peak, a.window)})`],
    ["last request", last ? `${num(last.total)} (${pct(last.total, a.window)})` : "-"],
  ];
  if (a.cost) {
    items.push(["cost", dollars(a.cost.dollars)]);
    items.push(["without the cache", dollars(a.cost.noCacheDollars)]);
    items.push(["cache hits", pct(a.cost.cachedTokens, a.cost.inputTokens)]);
  }
  items.push(["open problems", num(open)]);
  return `<ul class="stats">${items.map(([k, v]) => `<li>${escapeHtml(k)}<b>${escapeHtml(v)}</b></li>`).join("")}</ul>`;
}

function legend(a: SessionAnalysis): string {
  const parts = REPORT_COMPONENTS.map((c, k) => legendItem(c, COLORS[k] as string));
  parts.push(legendItem("window", "#111827", "line"));
  if (a.effectiveLimit < a.window) parts.push(legendItem("prompt budget", "#4b5563", "line", true));
  parts.push(legendItem("trims and compactions start", "#dc2626", "line", true));
  parts.push(legendItem("they cut to", "#16a34a", "line", true));
  parts.push(
    `<li><svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><path d="M0 0h12l-6 10z" fill="#dc2626"/></svg>compaction (click)</li>`,
  );
  return `<ul class="legend" id="legend">${parts.join("")}</ul>`;
}

function compactionDetails(a: SessionAnalysis): string {
  if (a.compactions.length === 0) return `<p class="note">No trim or compaction in this session.</p>`;
  return a.compactions
    .map((c, i) => {
      const at = c.request < a.requests.length ? `before request ${c.request + 1}` : "after the last request";
      const counts = c.units.map((u) => `${num(u.ids.length + u.more)} ${u.kind}`).join(", ");
      const when = c.time === undefined ? "" : `, ${escapeHtml(new Date(c.time).toISOString())}`;
      const units = c.units
        .map((u) => {
          const head = `${escapeHtml(KIND_WORDS[u.kind])}: ${num(u.ids.length + u.more)} message${u.ids.length + u.more === 1 ? "" : "s"}${u.summaryId === undefined ? "" : `, into summary <code>${escapeHtml(u.summaryId)}</code>`}`;
          const ids = u.ids.length === 0 ? "" : `<code>${u.ids.map(escapeHtml).join(" ")}</code>`;
          return `<p class="unit" data-kind="${u.kind}">${head}<br>${ids}${u.more > 0 ? ` and ${num(u.more)} more` : ""}</p>`;
        })
        .join("");
      return (
        `<details class="compaction" id="compaction-${i + 1}"><summary>Compaction ${i + 1} ${at}${when}: ` +
        `${num(c.tokensBefore)} → ${num(c.tokensAfter)} tokens (${escapeHtml(counts)})</summary>${units}</details>`
      );
    })
    .join("\n");
}

function problemsSection(a: SessionAnalysis): string {
  if (a.problems.length === 0) return `<h2>Open problems</h2><p class="note">The tool results reported no failure.</p>`;
  const open = a.requests.map((r) => r.openProblems);
  const rows = a.problems
    .map(
      (p) =>
        `<tr><td>${escapeHtml(p.label)}${p.lines.map((l) => `<pre>${escapeHtml(l)}</pre>`).join("")}</td>` +
        `<td class="n">${p.since + 1}</td><td class="n">${p.resolved === undefined ? "open" : p.resolved + 1}</td></tr>`,
    )
    .join("");
  return (
    `<h2>Open problems over time</h2><p class="note">Failures the tool results reported, until a later result showed the same check passing (what compaction keeps and summaries receive).</p>` +
    seriesChart("problems", open, "#b91c1c", (v) => String(Math.round(v))) +
    `<table id="problem-table"><thead><tr><th>problem</th><th class="n">since request</th><th class="n">resolved at</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

function costSection(a: SessionAnalysis): string {
  if (!a.cost) return "";
  const paid = a.requests.map((r) => r.cost?.dollars ?? 0);
  const cached = a.requests.map((r) => r.cost?.cachedTokens ?? 0);
  return (
    `<h2>Cache and dollars per request</h2>` +
    `<p class="note">Modelled with ${escapeHtml(a.cost.provider)}'s prompt-cache rules at the catalog's prices, from the prefix each request shares with the one before: ` +
    `${pct(a.cost.cachedTokens, a.cost.inputTokens)} of the prompt tokens read from the cache, ${dollars(a.cost.dollars)} in all (${dollars(a.cost.noCacheDollars)} without a cache).</p>` +
    `<p class="note">Dollars per request</p>${seriesChart("dollars", paid, "#0f766e", (v) => dollars(v))}` +
    `<p class="note">Prompt tokens read from the cache per request</p>${seriesChart("cached", cached, "#0284c7", (v) => num(v))}`
  );
}

/** The data the script reads: numbers only, so nothing in it comes from the log's text. */
function scriptData(a: SessionAnalysis): string {
  return JSON.stringify({
    t: a.requests.map((r) => r.tokens),
    c: a.requests.map((r) => r.cost?.cachedTokens ?? -1),
    d: a.requests.map((r) => (r.cost ? Math.round(r.cost.dollars * 1e6) / 1e6 : -1)),
    p: a.requests.map((r) => r.openProblems),
  });
}

// Plain ES2015 that every browser runs; it writes with textContent only.
const SCRIPT = `(function(){var D=DATA,N=${JSON.stringify(REPORT_COMPONENTS)};
var svg=document.getElementById("chart"),out=document.getElementById("readout"),cur=document.getElementById("cursor");
var x0=+svg.getAttribute("data-x0"),step=+svg.getAttribute("data-step");
function fmt(n){return Math.round(n).toLocaleString("en-US")}
svg.addEventListener("mousemove",function(e){if(e.target.closest&&e.target.closest(".marker"))return;var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;var m=svg.getScreenCTM();if(!m)return;p=p.matrixTransform(m.inverse());
var i=Math.floor((p.x-x0)/step);if(i<0||i>=D.t.length){cur.setAttribute("visibility","hidden");return}
var t=D.t[i],s=0,parts=[];for(var k=0;k<t.length;k++){s+=t[k];parts.push(N[k]+" "+fmt(t[k]))}
var text="Request "+(i+1)+": "+fmt(s)+" tokens ("+parts.join(", ")+")";
if(D.c[i]>=0)text+="; cached "+fmt(D.c[i])+", $"+D.d[i].toFixed(6);
text+="; open problems "+D.p[i];out.textContent=text;
var x=x0+(i+0.5)*step;cur.setAttribute("x1",x);cur.setAttribute("x2",x);cur.setAttribute("visibility","visible")});
function open(id){var d=document.getElementById(id);if(d&&d.tagName==="DETAILS"){d.open=true}}
function line(m){var d=document.getElementById("compaction-"+m.getAttribute("data-compaction"));return d?d.querySelector("summary").textContent:""}
var ms=document.querySelectorAll(".marker");for(var j=0;j<ms.length;j++){ms[j].addEventListener("mouseenter",function(){out.textContent=line(this)});ms[j].addEventListener("click",function(e){e.preventDefault();var id="compaction-"+this.getAttribute("data-compaction");open(id);var d=document.getElementById(id);if(d)d.scrollIntoView({block:"nearest"});history.replaceState(null,"","#"+id)})}
if(location.hash)open(location.hash.slice(1));})();`;

/** The page for an analysis (analyzeSession's). */
export function renderAnalysis(a: SessionAnalysis): string {
  const counted = a.exact ? `${a.encoding}, exact` : `${a.encoding}, approximate for this model`;
  const body =
    `<h1>${escapeHtml(a.title)}</h1>` +
    `<p class="note">${escapeHtml(a.model)} (${escapeHtml(counted)}): window ${num(a.window)} tokens, ${num(a.effectiveLimit)} for the prompt; ` +
    `trims and compactions start above ${num(a.trimAt)} and cut to ${num(a.trimTo)}. ${num(a.records)} log records.</p>` +
    `<p class="note">Each request is the context the log replays to just before a reply, recounted with the session's counter: the log records no provider usage.</p>` +
    stats(a) +
    `<h2>Tokens per request</h2>` +
    legend(a) +
    compositionChart(a) +
    `<div id="readout" aria-live="polite">Point at the chart for a request's figures; click a marker for what a compaction took.</div>` +
    costSection(a) +
    problemsSection(a) +
    `<h2>Compactions</h2><div id="compactions">${compactionDetails(a)}</div>`;
  return page(
    a.title,
    body,
    SCRIPT.replace("DATA", () => scriptData(a)),
  );
}
