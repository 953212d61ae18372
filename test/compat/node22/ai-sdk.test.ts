// ctxwin/ai-sdk with `ai` 7 and its MockLanguageModelV4: the suites ai 6 runs too
// (test/ts/adapters/ai-sdk-suite.ts, ai-sdk-parity-suite.ts), here on Node 22 or later, which `ai` 7 requires.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as ai from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { runAiSdkSuite, type AiSdk } from "../../ts/adapters/ai-sdk-suite.js";
import { runAiSdkParitySuite } from "../../ts/adapters/ai-sdk-parity-suite.js";

const sdk = { ...ai, major: 7, MockLanguageModel: MockLanguageModelV4, convertArrayToReadableStream } as unknown as AiSdk;
runAiSdkSuite(sdk);
runAiSdkParitySuite(sdk);

// The suite above would pass with ctxwin's adapter holding another `ai` than the test's (its calls
// are in both majors): the adapter loads `ai` from where ctxwin is installed, so that must be here.
describe("ctxwin/ai-sdk in this project", () => {
  it("loads this project's ai 7, as an application's install would", async () => {
    const adapter = fileURLToPath(new URL("./node_modules/ctxwin/dist/adapters/ai-sdk/index.js", import.meta.url));
    const fromCtxwin = createRequire(adapter);
    expect((fromCtxwin("ai/package.json") as { version: string }).version).toMatch(/^7\./);
    expect(fromCtxwin.resolve("ai")).toBe(createRequire(import.meta.url).resolve("ai"));
  });
});
