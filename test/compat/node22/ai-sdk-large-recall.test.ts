// The large-result recall loop (test/ts/recall/ai-sdk-large-recall-suite.ts) with `ai` 7 and its
// MockLanguageModelV4, on Node 22 or later, which `ai` 7 requires.
import * as ai from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import type { AiSdk } from "../../ts/adapters/ai-sdk-suite.js";
import { runAiSdkLargeRecallSuite } from "../../ts/recall/ai-sdk-large-recall-suite.js";

runAiSdkLargeRecallSuite({ ...ai, major: 7, MockLanguageModel: MockLanguageModelV4, convertArrayToReadableStream } as unknown as AiSdk);
