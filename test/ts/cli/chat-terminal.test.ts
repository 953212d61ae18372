// `ctxwin chat --offline` driven in a real pseudo-terminal (tmux) through a whole session, read
// from the screen as a person reads it (and `ctxwin count`'s progress bar): turns, /stats, the 80% and 90% warnings in their colours,
// the automatic trim one turn after the 90% warning, /export, /clear, /import, /save and --resume.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TiktokenCounter } from "ctxwin";
import { afterEach, describe, expect, it } from "vitest";
import { ctxwinBin, packageRoot } from "../support/cli.js";
import { TmuxScreen } from "../support/tmux.js";

const WARNING_80 = "Context at 80% capacity. Consider /clear or /save.";
const WARNING_90 = "Context at 90% capacity. Auto-trimming soon.";
const TRIMMED = "Context trimmed. Kept first 2 and last 10 turns.";
const ESC = "\x1b";

let screen: TmuxScreen | undefined;
afterEach(() => {
  screen?.close();
  screen = undefined;
});

const prompts = (text: string) => (text.match(/^you> /gm) ?? []).length;

function startChat(
  args: string,
  env: Record<string, string> = {},
  unset: string[] = [],
  cwd = mkdtempSync(join(tmpdir(), "ctxwin-chat-")),
): TmuxScreen {
  const without = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", ...unset].map((v) => `-u ${v}`).join(" ");
  return new TmuxScreen(`env ${without} ${ctxwinBin} chat ${args}`, { cwd, env: { TERM: "xterm-256color", ...env } });
}

/** Types a line and waits for the next prompt; returns what the turn printed. */
async function turn(s: TmuxScreen, line: string): Promise<string> {
  const before = s.capture();
  const count = prompts(before);
  s.type(line);
  const after = await s.waitFor((text) => prompts(text) > count, `the prompt after "${line}"`);
  return after.slice(after.lastIndexOf(`you> ${line}`));
}

describe("ctxwin count in a terminal", () => {
  it("shows a progress bar on stderr while it counts a large input, and clears it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ctxwin-count-"));
    // Varied text (seeded word salad from the README), so that counting it takes a moment.
    const words = readFileSync(join(packageRoot, "README.md"), "utf8").split(/\s+/).filter(Boolean);
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const lines: string[] = [];
    for (let i = 0; i < 400_000; i++) lines.push(Array.from({ length: 12 }, () => words[next() % words.length]).join(" "));
    const text = `${lines.join("\n")}\n`;
    writeFileSync(join(dir, "big.txt"), text);
    screen = new TmuxScreen(`${ctxwinBin} count big.txt`, { cwd: dir, env: { TERM: "xterm-256color" } });
    const s = screen;
    const during = await s.waitFor((t) => /counting .*\d+% \| [\d.]+\/[\d.]+ MB/.test(t), "the progress bar", 30000);
    expect(during).toMatch(/counting [█░]+ \d+% \| [\d.]+\/[\d.]+ MB \| ETA/);
    const done = await s.waitFor((t) => t.includes("gpt-4o (o200k_base, exact)"), "the count", 60000);
    // The oracle counts the whole text at once, off the main thread: it is beyond a synchronous count.
    expect(done).toContain(`${(await new TiktokenCounter({ model: "gpt-4o" }).countAsync(text)).toLocaleString("en-US")}  big.txt`);
    expect(done).not.toContain("counting");
  }, 90_000);
});

describe("ctxwin chat in a terminal", () => {
  it("goes through a whole session: turns, /stats, both warnings, the automatic trim, /export, /clear, /import, /save", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "ctxwin-chat-"));
    screen = startChat("--offline --window 2000 --store sessions", {}, [], cwd);
    const s = screen;
    const banner = await s.waitFor((t) => prompts(t) === 1, "the first prompt");
    expect(banner).toContain("ctxwin chat: gpt-4o-mini, window 2,000 tokens (--window), counted with o200k_base, exact");
    expect(banner).toContain("Offline assistant: it is not a language model.");
    const sessionId = /Session ([0-9a-f-]{36})\./.exec(banner)?.[1];
    expect(sessionId).toBeDefined();

    const first = await turn(s, "Note 1: my name is Ada and the parser lives in src/parse.ts.");
    expect(first).toContain("assistant> (offline) This is the start of the conversation as I receive it.");
    const second = await turn(s, "Note 2: the tests are in test/parse.test.ts.");
    expect(second).toContain('I receive 2 earlier messages. The first: "Note 1: my name is Ada and the parser lives in src/parse.ts."');

    const stats = await turn(s, "/stats");
    expect(stats).toContain(`Session ${sessionId}`);
    expect(stats).toMatch(/Context [\d,]+ of 2,000 tokens \(\d+\.\d%\)/);
    expect(stats).toContain("Messages 4: 2 user, 2 assistant; 2 turns this session");
    expect(stats).toContain("Trims   0;");

    // The session grows until the 80% warning, then the 90% one; no trim before both.
    let n = 3;
    let seen80 = -1;
    let seen90 = -1;
    for (; n < 60 && seen90 < 0; n++) {
      const out = await turn(s, `Note ${n}: module ${n} is built from src/module${n}.ts.`);
      expect(out).not.toContain("Context trimmed");
      if (out.includes(WARNING_80)) seen80 = n;
      if (out.includes(WARNING_90)) seen90 = n;
      // The warnings come after the response, before the next prompt.
      if (out.includes("Context at")) expect(out.indexOf("Context at")).toBeGreaterThan(out.indexOf("assistant> "));
    }
    expect(seen80).toBeGreaterThan(2);
    expect(seen90).toBeGreaterThan(seen80);

    const due = await turn(s, "/stats");
    expect(due).toContain("the automatic trim follows the next turn");

    // One more turn with the whole context, then the trim and its notice before the next prompt.
    const grace = await turn(s, "One more turn before the trim.");
    expect(grace).toContain(`I receive ${2 * (n - 1)} earlier messages.`);
    expect(grace).toContain(TRIMMED);
    expect(grace.indexOf(TRIMMED)).toBeGreaterThan(grace.indexOf("assistant> "));
    expect(grace.trimEnd().endsWith("you>")).toBe(true);

    const afterTrim = await turn(s, "What do you receive now?");
    expect(afterTrim).toMatch(
      /I receive 12 earlier messages and a note that \d+ messages were left out\. The first: "Note 1: my name is Ada/,
    );
    const trimmedStats = await turn(s, "/stats");
    expect(trimmedStats).toMatch(/Trims {3}1 \(\d+ messages removed\)/);
    expect(trimmedStats).toContain("Messages 14:");

    // The colours: yellow for 80%, 256-colour orange for 90%, cyan for the notice.
    const coloured = s.capture(true);
    expect(coloured).toContain(`${ESC}[33m${WARNING_80}`);
    expect(coloured).toContain(`${ESC}[38;5;208m${WARNING_90}`);
    expect(coloured).toContain(`${ESC}[36m${TRIMMED}`);

    const context = await turn(s, "/context");
    expect(context).toMatch(/^ {2}user\s+[\d,]+\s+\d+\.\d%/m);
    expect(context).toContain("Next trim (smart)");

    const exported = await turn(s, "/export context.json");
    expect(exported).toContain(`Exported 15 turns of session ${sessionId} to context.json.`);
    const file = JSON.parse(readFileSync(join(cwd, "context.json"), "utf8")) as {
      metadata: { session_id: string; agent: string; created_at: string; updated_at: string; message_count: number };
      turns: Array<{ role: string; content: string; ctxwin?: { kind: string } }>;
    };
    expect(file.metadata).toMatchObject({ session_id: sessionId, agent: "ctxwin chat", message_count: 14 });
    expect(Date.parse(file.metadata.updated_at)).toBeGreaterThanOrEqual(Date.parse(file.metadata.created_at));
    expect(file.turns[0]?.content).toBe("Note 1: my name is Ada and the parser lives in src/parse.ts.");
    expect(file.turns.filter((t) => t.ctxwin?.kind === "omission")).toHaveLength(1);

    const cleared = await turn(s, "/clear");
    expect(cleared).toContain(`Context cleared. Session ${sessionId} goes on (its metadata is kept).`);
    const fresh = await turn(s, "Do you remember Ada?");
    expect(fresh).toContain("This is the start of the conversation as I receive it.");
    const clearedStats = await turn(s, "/stats");
    expect(clearedStats).toContain(`Session ${sessionId} (ctxwin chat, since`);
    expect(clearedStats).toContain("Messages 2: 1 user, 1 assistant");

    const imported = await turn(s, "/import context.json");
    expect(imported).toMatch(/Imported 14 messages from context\.json: [\d,]+ tokens/);
    const afterImport = await turn(s, "And now?");
    expect(afterImport).toMatch(
      /I receive 14 earlier messages and a note that \d+ messages were left out\. The first: "Note 1: my name is Ada/,
    );
    expect(await turn(s, "/import missing.json")).toContain("Cannot read missing.json");

    expect(await turn(s, "/frobnicate")).toContain("Unknown command /frobnicate. Type /help for the commands.");
    expect(await turn(s, "/help")).toContain("/export FILE");

    const saved = await turn(s, "/save");
    expect(saved).toContain(`Saved session ${sessionId} (16 messages) in sessions; every change from now on is saved too.`);
    await turn(s, "A turn after saving.");
    s.type("/exit");
    await s.waitFor((t) => t.includes(`Session ${sessionId} ended.`), "the end of the session");
    await s.waitFor(() => s.exited(), "the process to exit");
    expect(existsSync(join(cwd, "sessions"))).toBe(true);
    s.close();

    // The saved session goes on in a new process, with every turn, the one after /save included.
    screen = startChat(`--offline --window 2000 --store sessions --resume ${sessionId}`, {}, [], cwd);
    const resumed = screen;
    await resumed.waitFor((t) => prompts(t) === 1, "the resumed chat's prompt");
    const resumedStats = await turn(resumed, "/stats");
    expect(resumedStats).toContain(`Session ${sessionId}`);
    expect(resumedStats).toContain("saved in sessions");
    expect(resumedStats).toContain("Messages 18: 9 user, 9 assistant");
    expect(await turn(resumed, "Still there?")).toContain("I receive 18 earlier messages");
  }, 120_000);

  it("falls back to yellow for the 90% warning on a 16-colour terminal", async () => {
    // Node reads the colour depth from TERM, but takes any tmux (TMUX) or COLORTERM for more.
    screen = startChat("--offline --window 300", { TERM: "xterm" }, ["TMUX", "COLORTERM"]);
    const s = screen;
    await s.waitFor((t) => prompts(t) === 1, "the first prompt");
    for (let n = 1; n < 20 && !s.capture().includes(WARNING_90); n++) await turn(s, `Line ${n}.`);
    const coloured = s.capture(true);
    expect(coloured).toContain(`${ESC}[33m${WARNING_90}`);
    expect(coloured).not.toContain("38;5;208");
  }, 60_000);

  it("writes no colour when NO_COLOR is set", async () => {
    screen = startChat("--offline --window 300", { NO_COLOR: "1" });
    const s = screen;
    await s.waitFor((t) => prompts(t) === 1, "the first prompt");
    for (let n = 1; n < 20 && !s.capture().includes(WARNING_90); n++) await turn(s, `Line ${n}.`);
    expect(s.capture()).toContain(WARNING_80);
    expect(s.capture(true)).not.toContain(`${ESC}[3`);
  }, 60_000);
});
