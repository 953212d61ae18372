// The contract ClaudeCounter is judged on: for every document of the fixtures, in every family,
// countMessages([{ role: "user", content: text }]) equals the input_tokens that Anthropic's
// count_tokens returned (test/fixtures/claude, recorded by ctok, MIT: 1,741 Rosetta Code documents
// and 501 UDHR translations, plus ctok's two held-out sets, 250 Rosetta Code documents and 22
// MultiPL-E files its tables were not fitted on).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ClaudeCounter, getCounter } from "ctxwin";
import { CachingCounter, type ClaudeFamily } from "ctxwin/tokens";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "claude");

interface Fixture {
  name: string;
  docs: Array<{ key: string; text: string }>;
  counts: Record<ClaudeFamily, { model: string; counts: Record<string, number> }>;
}

function load(name: string, key: string): Fixture {
  const lines = gunzipSync(readFileSync(join(FIXTURES, `${name}.jsonl.gz`)))
    .toString("utf8")
    .trim()
    .split("\n");
  const docs = lines.map((line) => {
    const doc = JSON.parse(line) as Record<string, string>;
    return { key: doc[key] as string, text: doc.text as string };
  });
  return { name, docs, counts: JSON.parse(readFileSync(join(FIXTURES, `${name}_counts.json`), "utf8")) };
}

const fixtures = [load("rosetta", "id"), load("udhr", "f"), load("rosetta_holdout", "id"), load("multipl_e", "lang")];
const families: ClaudeFamily[] = ["v3", "v4.7", "v5"];

describe.each(families)("ClaudeCounter %s equals count_tokens", (family) => {
  const counter = new ClaudeCounter({ family });

  it.each(fixtures.map((f) => [f.name, f] as const))("on every %s document", (_name, fixture) => {
    const recorded = fixture.counts[family].counts;
    const mismatches: string[] = [];
    for (const doc of fixture.docs) {
      const want = recorded[doc.key];
      expect(want, `recorded count for ${doc.key}`).toBeTypeOf("number");
      const got = counter.countMessages([{ role: "user", content: doc.text }]);
      if (got !== want) mismatches.push(`${doc.key}: ${got} != ${want}`);
    }
    expect(mismatches).toEqual([]);
    expect(fixture.docs.length).toBeGreaterThanOrEqual(22);
  });

  it("the model the family was measured on routes to it, through getCounter and its cache", () => {
    const fixture = fixtures[0] as Fixture;
    const model = fixture.counts[family].model;
    const cached = getCounter(model);
    expect(cached).toBeInstanceOf(CachingCounter);
    expect((cached.inner as ClaudeCounter).family).toBe(family);
    for (const doc of fixture.docs.slice(0, 200)) {
      expect(cached.countMessages([{ role: "user", content: doc.text }])).toBe(fixture.counts[family].counts[doc.key]);
    }
  });
});
