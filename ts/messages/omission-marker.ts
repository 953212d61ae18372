// The message a trim puts where it omitted messages: "[N messages omitted]".
import type { InsertedRole } from "./roles.js";

/** The marker a smart truncation puts where messages were omitted. */
export interface OmissionMarker {
  role: InsertedRole;
  content: string;
}

export function omissionMarker(omitted: number, role: InsertedRole = "system"): OmissionMarker {
  return { role, content: `[${omitted} messages omitted]` };
}
