// The command line's pieces for programs ("ctxwin/cli"): run a command line with your own streams,
// or compute and draw the inspect view of a conversation. Not re-exported by "ctxwin" itself, so
// that importing the library loads none of the CLI.
import "../runtime/node-loader.js"; // loads the core on Node before anything uses it
export { runCli } from "./run.js";
export {
  analyzeContext,
  renderContextView,
  type AnalyzeOptions,
  type Component,
  type ContextView as InspectView,
  type MessageSummary,
} from "./inspect.js";
export { parseConversation, type Conversation } from "./input.js";
export { paletteFor, type Io, type Palette } from "./terminal.js";
