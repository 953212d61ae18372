// The agent-tools loop (test/ts/agent-tools/ai-sdk-agent-tools-suite.ts) with `ai` 7 and its
// MockLanguageModelV4, on Node 22 or later, which `ai` 7 requires.
import * as ai from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import type { AiSdk } from "../../ts/adapters/ai-sdk-suite.js";
import { runAiSdkAgentToolsSuite } from "../../ts/agent-tools/ai-sdk-agent-tools-suite.js";

runAiSdkAgentToolsSuite({ ...ai, major: 7, MockLanguageModel: MockLanguageModelV4, convertArrayToReadableStream } as unknown as AiSdk);
