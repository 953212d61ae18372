// The large-result recall loop (ai-sdk-large-recall-suite.ts) with `ai` 6 and its
// MockLanguageModelV3; `ai` 7 runs it on Node 22 or later from test/compat/node22/.
import * as ai from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import type { AiSdk } from "../adapters/ai-sdk-suite.js";
import { runAiSdkLargeRecallSuite } from "./ai-sdk-large-recall-suite.js";

runAiSdkLargeRecallSuite({ ...ai, major: 6, MockLanguageModel: MockLanguageModelV3, convertArrayToReadableStream } as unknown as AiSdk);
