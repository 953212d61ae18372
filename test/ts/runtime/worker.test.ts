// The addon keeps no global state, only per-thread state (piece caches): it loads and works in
// worker threads, several at once, and each thread counts through its own caches.
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

const countingScript = `
  const { parentPort, workerData } = require("node:worker_threads");
  import("ctxwin").then(({ TiktokenCounter }) => {
    const counter = new TiktokenCounter({ encoding: "o200k_base" });
    const counts = workerData.map((text) => counter.count(text));
    TiktokenCounter.clearPieceCaches();
    counter.countManyAsync(workerData).then((again) => parentPort.postMessage({ counts, again: Array.from(again) }));
  });
`;

describe("worker_threads", () => {
  it("counts exactly in several workers at once, each through its own caches", async () => {
    const texts = ["Hello, world!", "日本語のテキストはひとつの長いピースになります", "const x = compute(42);\n".repeat(50), "Привет, мир"];
    const { TiktokenCounter } = await import("ctxwin");
    const expected = Array.from(new TiktokenCounter({ encoding: "o200k_base" }).countMany(texts));
    const results = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ counts: number[]; again: number[] }>((resolve, reject) => {
            const worker = new Worker(countingScript, { eval: true, workerData: texts });
            worker.once("message", (message) => {
              resolve(message);
              void worker.terminate();
            });
            worker.once("error", reject);
          }),
      ),
    );
    for (const result of results) expect(result).toEqual({ counts: expected, again: expected });
  });

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
        expected += Math.ceil(
          JSON.stringify({ type: "message", timestamp: i, iteration: i, role: "user", content: "x".repeat(n * i) }).length / 3.5,
        );
      }
      expect(results[k]).toEqual({ tokens: expected, hello: 2 });
    }
  });
});
