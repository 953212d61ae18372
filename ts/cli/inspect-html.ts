// `ctxwin inspect --html`: one request's view (analyzeContext's) as a self-contained HTML page in
// the session report's style: the window as one bar split by component, the components with
// their share, the largest messages and what the next trim removes. Message previews are the
// conversation's own text: escaped like everything else a page shows from its input.
import { COLORS, dollars, escapeHtml, num, page, pct } from "../report/html.js";
import type { ContextView } from "./inspect-view.js";

// The report's colours where the components match its own; tool calls and definitions get theirs.
const COLOR: Record<string, string> = {
  system: COLORS[0],
  "tool definitions": "#9ca3af",
  user: COLORS[1],
  assistant: COLORS[4],
  "tool calls": "#65a30d",
  "tool results": COLORS[3],
  "request overhead": "#d1d5db",
};

/** The page of one request's view, titled `title` (the file and its format). */
export function renderInspectHtml(view: ContextView, title: string): string {
  const counted = view.exact ? `${view.encoding}, exact` : `${view.encoding}, approximate for this model`;
  const shown = view.components.filter((c) => c.tokens > 0);
  const free = Math.max(0, view.effectiveLimit - view.total);
  const width = (tokens: number) => `${((100 * tokens) / Math.max(1, view.window)).toFixed(3)}%`;
  const bar =
    `<div class="bar" id="window-bar" role="img" aria-label="The window by component">` +
    shown
      .map(
        (c) =>
          `<span class="part" title="${escapeHtml(`${c.name}: ${num(c.tokens)}`)}" style="width:${width(c.tokens)};background:${COLOR[c.name] ?? "#6b7280"}"></span>`,
      )
      .join("") +
    `</div>`;
  const legend = `<ul class="legend" id="legend">${shown
    .map((c) => `<li><span class="swatch" style="background:${COLOR[c.name] ?? "#6b7280"}"></span>${escapeHtml(c.name)}</li>`)
    .join("")}<li><span class="swatch" style="background:#f3f4f6;border:1px solid #d1d5db"></span>free</li></ul>`;
  const rows = view.components
    .flatMap((c) => [
      `<tr><td>${escapeHtml(c.name)}</td><td class="n">${num(c.tokens)}</td><td class="n">${pct(c.tokens, view.window)}</td></tr>`,
      ...(c.children ?? []).map(
        (child) =>
          `<tr><td>&nbsp;&nbsp;${escapeHtml(child.name)}</td><td class="n">${num(child.tokens)}</td><td class="n">${pct(child.tokens, view.window)}</td></tr>`,
      ),
    ])
    .join("");
  const table =
    `<table id="components"><thead><tr><th>component</th><th class="n">tokens</th><th class="n">of the window</th></tr></thead><tbody>${rows}` +
    `<tr><th>total</th><th class="n">${num(view.total)}</th><th class="n">${pct(view.total, view.window)}</th></tr>` +
    `<tr><td>free</td><td class="n">${num(free)}</td><td class="n">${pct(free, view.window)}</td></tr></tbody></table>`;
  const largest = view.largest
    .map(
      (m) =>
        `<tr><td class="n">${m.index + 1}</td><td>${escapeHtml(m.tool ? `${m.role} (${m.tool})` : m.role)}</td><td class="n">${num(m.tokens)}</td><td><code>${escapeHtml(m.preview)}</code></td></tr>`,
    )
    .join("");
  const { trim } = view;
  const next = !trim.due
    ? `Not due: trims start above ${num(trim.threshold)} tokens; ${num(trim.threshold - view.total)} to go.`
    : trim.removed.length === 0
      ? `Due (over ${num(trim.threshold)} tokens), but the strategy can remove nothing${trim.warning ? `: ${trim.warning}` : "."}`
      : `Due (over ${num(trim.threshold)} tokens): removes ${trim.removed.length} messages (${trim.removed.map((m) => `#${m.index + 1}`).join(", ")}), ` +
        `${num(trim.removedTokens)} tokens; ${num(trim.tokensAfter)} remain.`;
  const cost = view.cost
    ? `<h2>Cost of this request</h2><p class="note">Through ${escapeHtml(view.cost.provider)}'s prompt cache at the catalog's prices: ` +
      `${dollars(view.cost.cold.dollars)} sent cold, ${dollars(view.cost.warm.dollars)} with its prefix cached, ${dollars(view.cost.noCache.dollars)} with no cache` +
      `${view.cost.afterTrim ? `; ${dollars(view.cost.afterTrim.dollars)} for the first request after the next trim` : ""}.</p>`
    : "";
  const body =
    `<h1>${escapeHtml(title)}</h1>` +
    `<p class="note">${escapeHtml(view.model)} (${escapeHtml(counted)}): window ${num(view.window)} tokens, ${num(view.effectiveLimit)} for the prompt` +
    `${view.reserved > 0 ? `, ${num(view.reserved)} reserved for the response and a margin` : ""}. ${num(view.messages)} messages, ${num(view.total)} tokens (${pct(view.total, view.window)}).</p>` +
    legend +
    bar +
    table +
    (largest === ""
      ? ""
      : `<h2>Largest messages</h2><table id="largest"><thead><tr><th class="n">#</th><th>role</th><th class="n">tokens</th><th>text</th></tr></thead><tbody>${largest}</tbody></table>`) +
    `<h2>Next trim (${escapeHtml(trim.strategy)})</h2><p id="next-trim">${escapeHtml(next)}</p>` +
    (trim.marker ? `<p class="note">Its marker: <code>${escapeHtml(trim.marker)}</code></p>` : "") +
    cost;
  return page(title, body);
}
