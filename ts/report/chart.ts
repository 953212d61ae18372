// The report's charts as hand-written SVG: smaller than any charting library (a 1,000-request
// session is a few tens of KB of paths) and nothing to load. Each component is one path, a step
// outline of its stacked top edge closed to the baseline, drawn from the top component down so
// that each covers the ones above it only where it is higher.
import { COLORS, coord, escapeHtml, short } from "./html.js";
import { REPORT_COMPONENTS, type SessionAnalysis } from "./session-analysis.js";

export const WIDTH = 960;
const LEFT = 56;
const RIGHT = 96;
const TOP = 12;

interface Frame {
  /** The plot's left edge and width, its top and height. */
  x0: number;
  w: number;
  y0: number;
  h: number;
  /** The value at the plot's top. */
  max: number;
  /** Width of one request. */
  step: number;
}

const yOf = (f: Frame, value: number) => f.y0 + f.h - (f.h * Math.min(value, f.max)) / f.max;

/** A round value at or above `n` for the axis' top: 1, 2 or 5 times a power of ten, or the window's next multiple of it. */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * power >= n) return m * power;
  return 10 * power;
}

function axis(f: Frame, ticks: number, label: (v: number) => string): string {
  let out = "";
  for (let i = 0; i <= ticks; i++) {
    const v = (f.max * i) / ticks;
    const y = coord(yOf(f, v));
    out += `<line class="grid" x1="${f.x0}" x2="${f.x0 + f.w}" y1="${y}" y2="${y}"/><text x="${f.x0 - 6}" y="${y}" dy="4" text-anchor="end">${label(v)}</text>`;
  }
  return out;
}

/** Request numbers under the plot (1-based, about eight of them). */
function requestTicks(f: Frame, n: number): string {
  if (n === 0) return "";
  const every = Math.max(1, niceMax(n / 8));
  let out = `<line class="axis" x1="${f.x0}" x2="${f.x0 + f.w}" y1="${f.y0 + f.h}" y2="${f.y0 + f.h}"/>`;
  for (let r = 0; r < n; r += every) {
    const x = coord(f.x0 + (r + 0.5) * f.step);
    out += `<text x="${x}" y="${f.y0 + f.h + 14}" text-anchor="middle">${r + 1}</text>`;
  }
  return out;
}

/** A step outline of `values` (one per request), closed to the baseline. */
function stepArea(f: Frame, values: ArrayLike<number>): string {
  const base = coord(f.y0 + f.h);
  let d = `M${f.x0} ${base}`;
  const step = coord(f.step);
  let last = "";
  for (let i = 0; i < values.length; i++) {
    // Tenths of a pixel: finer than a screen shows, and a third of the page's bytes are these.
    const y = String(Math.round(yOf(f, values[i] as number) * 10) / 10);
    // A run of equal heights is one horizontal stretch: "h" adds up without a new "V".
    d += y === last ? `h${step}` : `V${y}h${step}`;
    last = y;
  }
  return `${d}V${base}Z`;
}

function hline(f: Frame, value: number, color: string, label: string, dash: boolean, cls: string): string {
  const y = coord(yOf(f, value));
  return (
    `<g class="${cls}"><line x1="${f.x0}" x2="${f.x0 + f.w}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="1.5"${dash ? ' stroke-dasharray="6 4"' : ""}/>` +
    `<text x="${f.x0 + f.w + 6}" y="${y}" dy="4">${escapeHtml(label)}</text></g>`
  );
}

/** The stacked composition, the window and thresholds as lines, a marker per compaction. */
export function compositionChart(a: SessionAnalysis): string {
  const n = a.requests.length;
  const peak = a.requests.reduce((m, r) => Math.max(m, r.total), 0);
  const height = 320;
  const f: Frame = {
    x0: LEFT,
    w: WIDTH - LEFT - RIGHT,
    y0: TOP,
    h: height - TOP - 24,
    max: niceMax(Math.max(a.window, peak) * 1.04),
    step: 0,
  };
  f.step = f.w / Math.max(1, n);
  const stacked = REPORT_COMPONENTS.map(() => new Float64Array(n));
  a.requests.forEach((r, i) => {
    let sum = 0;
    REPORT_COMPONENTS.forEach((_c, k) => {
      sum += r.tokens[k] ?? 0;
      (stacked[k] as Float64Array)[i] = sum;
    });
  });
  let areas = "";
  for (let k = REPORT_COMPONENTS.length - 1; k >= 0; k--)
    areas += `<path class="area" data-component="${REPORT_COMPONENTS[k]}" fill="${COLORS[k]}" d="${stepArea(f, stacked[k] as Float64Array)}"/>`;
  const lines =
    hline(f, a.window, "#111827", `window ${short(a.window)}`, false, "threshold window") +
    (a.effectiveLimit < a.window
      ? hline(f, a.effectiveLimit, "#4b5563", `prompt ${short(a.effectiveLimit)}`, true, "threshold budget")
      : "") +
    hline(f, a.trimAt, "#dc2626", `trim at ${short(a.trimAt)}`, true, "threshold trim-at") +
    hline(f, a.trimTo, "#16a34a", `trim to ${short(a.trimTo)}`, true, "threshold trim-to");
  // All the markers' lines are one path; each marker is a link to its details (the page's script opens them).
  let markerLines = "";
  let markers = "";
  a.compactions.forEach((c, i) => {
    const x = coord(f.x0 + Math.min(c.request, n) * f.step);
    markerLines += `M${x} ${f.y0}V${f.y0 + f.h}`;
    markers += `<a class="marker" href="#compaction-${i + 1}" data-compaction="${i + 1}"><path d="M${x} ${f.y0 + 9}l-6 -10h12z"/></a>`;
  });
  if (markerLines !== "") markers = `<path class="marker-lines" d="${markerLines}"/>${markers}`;
  return (
    `<svg id="chart" class="chart" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="Tokens per request by component" data-requests="${n}" data-x0="${f.x0}" data-step="${coord(f.step)}">` +
    axis(f, 5, short) +
    areas +
    lines +
    requestTicks(f, n) +
    markers +
    `<line id="cursor" x1="0" x2="0" y1="${f.y0}" y2="${f.y0 + f.h}" stroke="#111827" stroke-width="1" visibility="hidden"/>` +
    `</svg>`
  );
}

/** A small chart of one series per request: its step area, labelled axis, the same x as the main chart. */
export function seriesChart(id: string, values: ArrayLike<number>, color: string, label: (v: number) => string, height = 110): string {
  const n = values.length;
  let peak = 0;
  for (let i = 0; i < n; i++) peak = Math.max(peak, values[i] as number);
  const f: Frame = { x0: LEFT, w: WIDTH - LEFT - RIGHT, y0: 8, h: height - 8 - 20, max: niceMax(peak || 1), step: 0 };
  f.step = f.w / Math.max(1, n);
  return (
    `<svg id="${id}" class="series" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(id)}">` +
    axis(f, 2, label) +
    `<path fill="${color}" fill-opacity="0.8" d="${stepArea(f, values)}"/>` +
    requestTicks(f, n) +
    `</svg>`
  );
}
