// What the three framework examples share: a task, a system prompt and a read_file tool whose
// outputs are whole source files (1,000 to 3,000 tokens each), so that a long tool loop outgrows
// an 8,000-token window within a few steps. Offline: the outputs are generated.
export const SYSTEM = "You are a careful coding agent. Read the files you need, then answer with a short report.";
export const TASK = "Invoices exported to CSV show the due date one day early for customers west of UTC. Find and fix the bug.";
export const ANSWER = "Fixed: parseIsoDate in src/util/dates.ts now takes the customer's time zone.";
export const STEPS = 60;

/** The "file" read at `step`: 80 to 230 lines of TypeScript, about 1,000 to 3,000 tokens. */
export function fileContents(step: number): string {
  const lines = 80 + ((step * 37) % 150);
  const out: string[] = [`// src/module${step}.ts`];
  for (let i = 1; i < lines; i++) out.push(`export const value${i} = compute(${i}, ${step});`);
  return out.join("\n");
}
