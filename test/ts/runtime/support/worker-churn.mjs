// The churn test's own process (worker-churn.test.ts runs it with node --expose-gc): rounds of
// 8 churn workers for CTXWIN_CHURN_ROUND_MS each; in every round 4 of them are terminated at
// random moments (each right after it says it is busy in a long native call) and replaced, and
// at the round's end all are terminated wherever they are. Prints one JSON line per round with
// the resident memory after the round. A C++ exception escaping during a worker's shutdown
// aborts this process, which the test sees as a signal instead of a clean exit.
import { Worker } from "node:worker_threads";

const rounds = Number(process.env.CTXWIN_CHURN_ROUNDS ?? 3);
const roundMs = Number(process.env.CTXWIN_CHURN_ROUND_MS ?? 10_000);
const workerUrl = new URL("./churn-worker.mjs", import.meta.url);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let seed = 7;

function start() {
  const worker = new Worker(workerUrl, { workerData: { seed: seed++ } });
  const handle = { worker, errors: [], ready: false, busy: 0 };
  worker.on("message", (message) => {
    if (message === "ready") handle.ready = true;
    if (message === "busy") handle.busy++;
    handle.onMessage?.(message);
  });
  worker.on("error", (error) => handle.errors.push(String(error?.stack ?? error)));
  return handle;
}

// Terminates `handle` the moment it reports a long native call (or after 2 s regardless).
function terminateWhenBusy(handle) {
  return new Promise((resolve) => {
    const stop = () => {
      handle.onMessage = undefined;
      clearTimeout(timer);
      handle.worker.terminate().then(resolve, resolve);
    };
    const timer = setTimeout(stop, 2000);
    handle.onMessage = (message) => {
      if (message === "busy") stop();
    };
  });
}

const results = [];
for (let r = 0; r < rounds; r++) {
  const started = Date.now();
  const handles = Array.from({ length: 8 }, start);
  let terminatedMidRound = 0;
  const victims = handles.slice(0, 4).map(async (handle, k) => {
    await sleep(((k + 1) * roundMs) / 6);
    await terminateWhenBusy(handle);
    terminatedMidRound++;
    handles.push(start()); // the pool replaces what it recycled
  });
  await Promise.all(victims);
  await sleep(Math.max(0, roundMs - (Date.now() - started)));
  // On a loaded machine (the wasm backend compiles its module in every worker) a round can end
  // before any worker reached a long native call, and then it tested nothing: wait for one,
  // bounded by four more round lengths.
  const deadline = Date.now() + 4 * roundMs;
  while (handles.every((handle) => handle.busy === 0) && Date.now() < deadline) await sleep(100);
  await Promise.all(handles.map((handle) => handle.worker.terminate()));
  const errors = handles.flatMap((handle) => handle.errors);
  const notReady = handles.filter((handle) => !handle.ready).length;
  const busyCalls = handles.reduce((sum, handle) => sum + handle.busy, 0);
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(100);
  }
  const rss = process.memoryUsage().rss;
  results.push({ round: r + 1, workers: handles.length, terminatedMidRound, notReady, busyCalls, errors, rss, ms: Date.now() - started });
  console.log(JSON.stringify(results.at(-1)));
}
