// The addon holds no global state: it loads and works in worker threads, several at once.
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const script = `
  const { parentPort, workerData } = require("node:worker_threads");
  import("ctxwin").then(({ ContextManager, estimateTokens }) => {
    const cm = new ContextManager({ keepRecentIterations: 1 });
    const thread = { id: "w", events: [], metadata: {}, createdAt: 0, updatedAt: 0 };
    for (let i = 1; i <= 5; i++) thread.events.push({ type: "message", timestamp: i, iteration: i, role: "user", content: "x".repeat(workerData * i) });
    parentPort.postMessage({ tokens: cm.estimateThreadTokens(thread), hello: estimateTokens("hello") });
  });
`;

describe("worker_threads", () => {
  it("loads the addon in several workers at once", async () => {
    const results = await Promise.all(
      [10, 20, 30].map(
        (n) =>
          new Promise<{ tokens: number; hello: number }>((resolve, reject) => {
            const worker = new Worker(script, { eval: true, workerData: n });
            worker.once("message", (message) => {
              resolve(message);
              void worker.terminate();
            });
            worker.once("error", reject);
          }),
      ),
    );
    for (const [k, n] of [10, 20, 30].entries()) {
      let expected = 0;
      for (let i = 1; i <= 5; i++) {
        expected += Math.ceil(JSON.stringify({ type: "message", timestamp: i, iteration: i, role: "user", content: "x".repeat(n * i) }).length / 3.5);
      }
      expect(results[k]).toEqual({ tokens: expected, hello: 2 });
    }
  });
});
