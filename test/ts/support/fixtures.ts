// Threads for the tests: deterministic agent sessions with tool calls, results and errors.
import type { AgentEvent, AgentThread } from "ctxwin";

export function makeThread(events: AgentEvent[] = []): AgentThread {
  return { id: "thread-1", events, metadata: { agent: "test" }, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000 };
}

/** `iterations` iterations of tool call + tool result (+ an error every 5th iteration). */
export function agentSession(iterations: number, resultSize = 200): AgentEvent[] {
  const events: AgentEvent[] = [];
  let t = 1_700_000_000_000;
  for (let i = 1; i <= iterations; i++) {
    const id = `call_${i}`;
    events.push({
      type: "tool_call",
      timestamp: t++,
      iteration: i,
      toolName: i % 2 ? "read_file" : "run_tests",
      toolCallId: id,
      args: { path: `src/module${i}.ts`, line: i * 10 },
    });
    events.push({
      type: "tool_result",
      timestamp: t++,
      iteration: i,
      toolCallId: id,
      result: `contents of module ${i}: ${"x".repeat(resultSize)}`,
    });
    if (i % 5 === 0) {
      events.push({
        type: "error",
        timestamp: t++,
        iteration: i,
        toolCallId: id,
        error: `TypeError: cannot read property 'x' at src/module${i}.ts:${i}`,
        recoverable: true,
      });
    }
  }
  return events;
}
