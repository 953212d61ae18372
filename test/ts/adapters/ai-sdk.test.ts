// ctxwin/ai-sdk with `ai` 6 and its MockLanguageModelV3 (the suites: ai-sdk-suite.ts, ai-sdk-parity-suite.ts; `ai` 7 runs them
// on Node 22 or later from test/compat/node22/).
import * as ai from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { runAiSdkSuite, type AiSdk } from "./ai-sdk-suite.js";
import { runAiSdkParitySuite } from "./ai-sdk-parity-suite.js";

const sdk = { ...ai, major: 6, MockLanguageModel: MockLanguageModelV3, convertArrayToReadableStream } as unknown as AiSdk;
runAiSdkSuite(sdk);
runAiSdkParitySuite(sdk);
