// Generated source code: random identifiers (camelCase, snake_case, PascalCase, with digits),
// keywords, operators, literals and indentation by spaces and tabs, in C-like statements and
// blocks. Not any real language: what matters is the token shapes of code (identifier pieces,
// runs of punctuation, runs of indentation), not code a tokenizer has seen.
import { fill, type Prng } from "./prng.js";

const KEYWORDS = [
  "const",
  "let",
  "return",
  "if",
  "else",
  "for",
  "while",
  "function",
  "class",
  "new",
  "await",
  "import",
  "export",
  "def",
  "fn",
  "pub",
  "static",
  "void",
  "int",
  "struct",
];
const OPERATORS = [
  "=",
  "==",
  "===",
  "!=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&&",
  "||",
  "<",
  ">",
  "<=",
  ">=",
  "<<",
  ">>",
  "+=",
  "->",
  "=>",
  "::",
  "??",
];

export function identifier(rng: Prng, words: readonly string[]): string {
  const parts = Array.from(
    { length: rng.range(1, 3) },
    () =>
      rng
        .pick(words)
        .replace(/'s$/, "")
        .replace(/[^A-Za-z]/g, "")
        .toLowerCase() || "x",
  );
  const style = rng.int(4);
  let name: string;
  if (style === 0) name = parts.join("_");
  else if (style === 1) name = parts.map((p, i) => (i === 0 ? p : p[0]?.toUpperCase() + p.slice(1))).join("");
  else if (style === 2) name = parts.map((p) => p[0]?.toUpperCase() + p.slice(1)).join("");
  else name = parts[0]?.slice(0, rng.range(1, 4)) ?? "x";
  return rng.chance(0.15) ? `${name}${rng.int(100)}` : name;
}

function literal(rng: Prng, words: readonly string[]): string {
  switch (rng.int(4)) {
    case 0:
      return String(rng.int(100_000));
    case 1:
      return `${rng.int(1000)}.${rng.int(1000)}`;
    case 2:
      return `0x${rng.hex(rng.range(2, 8))}`;
    default:
      return JSON.stringify(Array.from({ length: rng.range(1, 4) }, () => rng.pick(words)).join(" "));
  }
}

function expression(rng: Prng, words: readonly string[], depth = 0): string {
  const atom = rng.chance(0.6) ? identifier(rng, words) : literal(rng, words);
  if (depth > 2 || rng.chance(0.4)) return atom;
  switch (rng.int(3)) {
    case 0:
      return `${atom} ${rng.pick(OPERATORS)} ${expression(rng, words, depth + 1)}`;
    case 1:
      return `${identifier(rng, words)}(${Array.from({ length: rng.int(4) }, () => expression(rng, words, depth + 1)).join(", ")})`;
    default:
      return `${identifier(rng, words)}.${identifier(rng, words)}[${expression(rng, words, depth + 1)}]`;
  }
}

/** One function-sized block of statements, nested up to three levels. */
function block(rng: Prng, words: readonly string[], indent: string, depth: number): string {
  const lines: string[] = [];
  const statements = rng.range(2, 8);
  for (let i = 0; i < statements; i++) {
    const roll = rng.int(10);
    if (roll < 2 && depth < 3) {
      const head = rng.pick(["if", "while", "for"]);
      lines.push(`${indent}${head} (${expression(rng, words)}) {`);
      lines.push(block(rng, words, indent + (indent.startsWith("\t") ? "\t" : "  "), depth + 1));
      lines.push(`${indent}}`);
    } else if (roll < 3) {
      lines.push(`${indent}// ${Array.from({ length: rng.range(3, 10) }, () => rng.pick(words)).join(" ")}`);
    } else if (roll < 4) {
      lines.push(`${indent}return ${expression(rng, words)};`);
    } else {
      lines.push(`${indent}${rng.pick(KEYWORDS)} ${identifier(rng, words)} = ${expression(rng, words)};`);
    }
    if (rng.chance(0.1)) lines.push("");
  }
  return lines.join("\n");
}

/** About `bytes` of generated code: functions of nested blocks, indented by two spaces or tabs. */
export function codeText(rng: Prng, words: readonly string[], bytes: number): string {
  return fill(bytes, () => {
    const indent = rng.chance(0.3) ? "\t" : "  ";
    const params = Array.from({ length: rng.int(4) }, () => identifier(rng, words)).join(", ");
    return `${rng.pick(KEYWORDS)} ${identifier(rng, words)}(${params}) {\n${block(rng, words, indent, 0)}\n}\n\n`;
  });
}
