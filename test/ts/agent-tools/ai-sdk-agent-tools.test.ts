// The agent-tools loop (ai-sdk-agent-tools-suite.ts) with `ai` 6 and its MockLanguageModelV3; `ai` 7
// runs it on Node 22 or later from test/compat/node22/.
import * as ai from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import type { AiSdk } from "../adapters/ai-sdk-suite.js";
import { runAiSdkAgentToolsSuite } from "./ai-sdk-agent-tools-suite.js";

runAiSdkAgentToolsSuite({ ...ai, major: 6, MockLanguageModel: MockLanguageModelV3, convertArrayToReadableStream } as unknown as AiSdk);
