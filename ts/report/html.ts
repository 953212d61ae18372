// The pieces every page of the report is made of: escaping, numbers, the page's frame and style.
//
// Everything a page shows from a log or a conversation (ids, tool output, problem lines, titles)
// is untrusted text: it goes through escapeHtml, which leaves no character that could open a tag,
// an attribute or an entity. The pages load nothing (no network, no fonts, no scripts from
// elsewhere: the Content-Security-Policy says so), so they open from a file, offline.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` safe in HTML content and in a quoted attribute: & < > " ' written as entities. */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** 12,345 */
export function num(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** 12.3k, 1.2M: axis labels. */
export function short(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${+(n / 1000).toFixed(1)}k`;
  return String(Math.round(n));
}

/** $0.0123, with as many digits as a small amount needs. */
export function dollars(n: number): string {
  if (n === 0) return "$0";
  if (n >= 100) return `$${n.toFixed(0)}`;
  if (n >= 1) return `$${n.toFixed(2)}`;
  return `$${n.toPrecision(3)}`;
}

export function pct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "-";
}

/** A coordinate with at most two decimals, as short as it writes (the paths are most of a page's bytes). */
export function coord(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** Each component's colour, in REPORT_COMPONENTS order (readable on white, distinct for the common colour blindnesses). */
export const COLORS = ["#6b7280", "#7c3aed", "#d97706", "#0284c7", "#059669"] as const;

const STYLE = `
:root{color-scheme:light;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#fff}
body{margin:0 auto;max-width:1000px;padding:16px 20px 40px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.note{color:#4b5563;font-size:13px;margin:2px 0}
.stats{display:flex;flex-wrap:wrap;gap:8px 24px;margin:12px 0;padding:0}
.stats li{list-style:none}.stats b{display:block;font-size:18px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0;padding:0;font-size:13px}
.legend li{list-style:none;display:flex;align-items:center;gap:6px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px}
.line{display:inline-block;width:16px;height:0;border-top:2px solid}
svg{display:block;max-width:100%;height:auto;overflow:visible}
svg text{font:11px system-ui,sans-serif;fill:#374151}
.grid{stroke:#e5e7eb}.axis{stroke:#9ca3af}
.marker{cursor:pointer}.marker path{fill:#dc2626}.marker-lines{stroke:#dc2626;stroke-dasharray:3 3;opacity:.55;fill:none}
.marker:hover path,.marker:focus path{fill:#7f1d1d}
#readout{min-height:20px;font-size:13px;color:#111827;margin:4px 0;font-variant-numeric:tabular-nums}
details{border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:6px 10px}
details:target,details[open]{border-color:#dc2626}
summary{cursor:pointer}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f3f4f6;border-radius:3px;padding:0 3px;word-break:break-all}
.unit{margin:4px 0 8px}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px ui-monospace,Menlo,monospace;color:#7f1d1d}
.bar{display:flex;height:28px;border-radius:4px;overflow:hidden;background:#f3f4f6;margin:8px 0}
.bar span{display:block;height:100%}
`;

/**
 * The whole page: a strict Content-Security-Policy (nothing is fetched; the one inline script and
 * style are the page's own), the style, the body and an optional script.
 */
export function page(title: string, body: string, script = ""): string {
  const csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE.trim()}</style></head>\n<body>\n${body}\n` +
    (script === "" ? "" : `<script>${script}</script>\n`) +
    `</body></html>\n`
  );
}

/** A legend entry: a filled swatch, or a line of `style`. */
export function legendItem(label: string, color: string, kind: "swatch" | "line" = "swatch", dash = false): string {
  const mark =
    kind === "swatch"
      ? `<span class="swatch" style="background:${color}"></span>`
      : `<span class="line" style="border-top-color:${color}${dash ? ";border-top-style:dashed" : ""}"></span>`;
  return `<li>${mark}${escapeHtml(label)}</li>`;
}
