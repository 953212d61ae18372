// Summary models: every shape of model ctxwin can summarize with (AI SDK language models, plain
// prompt functions, LangChain-style `invoke`), and the built-in offline extractive summarizer.
export { extractiveSummarizer, type ExtractiveSummarizer } from "./extractive-summarizer.js";
export type { SummaryModel, LanguageModelLike, PromptFunction, InvokableModel } from "./summary-model.js";
