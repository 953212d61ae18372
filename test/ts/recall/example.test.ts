// examples/preview-and-recall.ts runs as a user runs it (node --import tsx), offline.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");

describe("examples/preview-and-recall.ts", () => {
  it("previews, compacts as previewed, and recalls a cleared result byte for byte", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", join(root, "examples", "preview-and-recall.ts")], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000,
    });
    const previewed = /^preview: \d+ -> (\d+) tokens/m.exec(out)?.[1];
    expect(out).toMatch(new RegExp(`^compacted: \\d+ -> ${previewed} tokens \\(the preview said ${previewed}\\)$`, "m"));
    expect(out).toMatch(/^placeholder: \[tool result cleared: [\d.]+ KB; recall\("(call_\d+)"\)\]$/m);
    expect(out).toMatch(/byte for byte: true$/m);
    expect(out).toContain("Error: duplicate charge detected for ch_17_5");
  });
});
