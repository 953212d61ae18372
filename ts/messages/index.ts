// The message vocabulary every other folder speaks: the shapes of messages and tool definitions,
// the roles ctxwin writes itself, and the omission marker.
export type { MessageLike, ToolDefinition, FunctionDefinition, JsonSchema, SystemTextBlock } from "./types.js";
export type { InsertedRole } from "./roles.js";
export type { OmissionMarker, OmittedEntry, OmissionNames } from "./omission-marker.js";
