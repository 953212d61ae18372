// ctxwin/ai-sdk with `ai` 7 and its MockLanguageModelV4: the suite ai 6 runs too
// (test/ts/adapters/ai-sdk-suite.ts), here on Node 22 or later, which `ai` 7 requires.
import * as ai from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { runAiSdkSuite, type AiSdk } from "../../ts/adapters/ai-sdk-suite.js";

runAiSdkSuite({ ...ai, major: 7, MockLanguageModel: MockLanguageModelV4, convertArrayToReadableStream } as unknown as AiSdk);
