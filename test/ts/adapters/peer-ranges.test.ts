// The optional peers' ranges accept both AI SDK stacks a user has: `ai` 6 with the providers of its
// generation (this checkout's node_modules) and `ai` 7 with theirs (test/compat/node22, which runs
// the adapters on AI SDK 7). npm refuses an install (ERESOLVE) where an installed peer is outside the
// range, whether ctxwin or the provider comes second, so each installed version must satisfy it.
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { peerDependencies: Record<string, string> };

/** The AI SDK packages of one stack, as installed in `project`. */
const AI_SDK_PACKAGES = ["ai", "@ai-sdk/anthropic", "@ai-sdk/openai-compatible"] as const;
const STACKS = [
  { name: "AI SDK 6", project: root, major: 6 },
  { name: "AI SDK 7", project: new URL("test/compat/node22/", root), major: 7 },
];

function installed(project: URL, name: string): string {
  return (JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, project), "utf8")) as { version: string }).version;
}

describe("the AI SDK peers' ranges", () => {
  it.each(STACKS)("accept every package of the $name stack as installed", ({ project, major }) => {
    expect(semver.major(installed(project, "ai"))).toBe(major);
    for (const name of AI_SDK_PACKAGES) {
      const range = manifest.peerDependencies[name];
      expect(range, name).toBeDefined();
      const version = installed(project, name);
      expect(semver.satisfies(version, range!), `${name}@${version} in ${range}`).toBe(true);
    }
  });

  it("name the providers' majors of both generations (anthropic 3 and 4, openai-compatible 2 and 3)", () => {
    expect(semver.intersects(manifest.peerDependencies["@ai-sdk/anthropic"]!, "^3.0.140")).toBe(true);
    expect(semver.intersects(manifest.peerDependencies["@ai-sdk/anthropic"]!, "^4.0.0")).toBe(true);
    expect(semver.intersects(manifest.peerDependencies["@ai-sdk/openai-compatible"]!, "^2.0.92")).toBe(true);
    expect(semver.intersects(manifest.peerDependencies["@ai-sdk/openai-compatible"]!, "^3.0.0")).toBe(true);
  });
});
