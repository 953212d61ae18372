// A chat agent on the AI SDK whose history MessageContextManager keeps inside the model's window:
// every message is counted once as it is added, and old turns are trimmed (tool calls with their
// results) before the request would overflow.
import { generateText, stepCountIs, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { MessageContextManager, TruncationMode, type ContextLimits, type LimitOverrides, type TrimEvent } from "ctxwin";

export interface ChatAgentOptions {
  model: LanguageModel;
  /** The model id for limits and counting (e.g. "gpt-4o"). */
  modelId: string;
  system: string;
  tools?: ToolSet;
  limits?: ContextLimits | LimitOverrides;
  onTrim?: (event: TrimEvent<ModelMessage>) => void;
}

export function createChatAgent(options: ChatAgentOptions) {
  const context = new MessageContextManager<ModelMessage>({
    model: options.modelId,
    mode: TruncationMode.SMART,
    limits: options.limits,
    compaction: { onTrim: options.onTrim },
  });
  context.setSystemPrompt(options.system);

  return {
    context,
    /** One user turn: the reply text, after the model's tool calls (up to 5 steps). */
    async send(text: string): Promise<string> {
      context.addMessage({ role: "user", content: text });
      const result = await generateText({
        model: options.model,
        messages: context.getContextForRequest() as ModelMessage[],
        // The system messages here are ours (the prompt and the "[N messages omitted]" marker).
        allowSystemInMessages: true,
        tools: options.tools,
        stopWhen: stepCountIs(5),
      });
      // The assistant's messages, tool calls and tool results of this turn, in order.
      for (const message of result.response.messages) context.addMessage(message);
      return result.text;
    },
  };
}
