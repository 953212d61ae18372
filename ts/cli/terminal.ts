// What the command line writes with: colours (picocolors, plus the one 256-colour orange that
// picocolors lacks), numbers in the reader's grouping, and the bars of the inspect view.
//
// Colour follows the usual rules: none when the stream is not a terminal or NO_COLOR is set
// (https://no-color.org); orange only where the terminal has 256 colours, yellow otherwise.
import pc from "picocolors";

// The type from picocolors' own declarations: the declarations of this file then need no default
// import of a CommonJS module (an error without esModuleInterop under moduleResolution node10).
import type { Colors } from "picocolors/types.js";

/** The streams a command writes to; tests pass their own. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; getColorDepth?: () => number; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface Palette extends Colors {
  /** The orange of the 90% warning: 256-colour 208 where available, else yellow. */
  orange(text: string): string;
  readonly enabled: boolean;
}

export function paletteFor(stream: Io["stdout"], env: NodeJS.ProcessEnv): Palette {
  const enabled = stream.isTTY === true && !(env.NO_COLOR !== undefined && env.NO_COLOR !== "");
  const colors = pc.createColors(enabled);
  // Node's getColorDepth reads TERM, COLORTERM and the CI variables: 8 bits means 256 colours.
  const depth = enabled && typeof stream.getColorDepth === "function" ? stream.getColorDepth() : 1;
  const orange = depth >= 8 ? (text: string) => `\x1b[38;5;208m${text}\x1b[39m` : colors.yellow;
  return { ...colors, orange, enabled };
}

const grouping = new Intl.NumberFormat("en-US");

/** 12,345 */
export function num(value: number): string {
  return grouping.format(value);
}

/** 12.3% */
export function pct(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "-";
}

/** A bar of `width` cells for part/whole, in eighths of a cell so that small shares still show. */
export function bar(part: number, whole: number, width: number): string {
  if (whole <= 0 || part <= 0) return "";
  const eighths = Math.round(Math.min(1, part / whole) * width * 8);
  const partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8] ?? "";
  return "█".repeat(Math.floor(eighths / 8)) + partial;
}

/** One line of text, at most `max` characters, for previews of messages. */
export function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 3)}...`;
}
