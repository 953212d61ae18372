import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/ts/**/*.test.ts"],
    // The addon is shared process-wide; threads keep worker start-up cheap on 2 cores.
    pool: "threads",
    // One test file per core. vitest's default leaves a core to its main thread (cores - 1: one
    // file at a time on CI's 2 cores), which idles here: many files wait on child processes.
    maxWorkers: availableParallelism(),
    testTimeout: 30000,
    // Modules of ts/ imported directly find the core installed, as the Node entry points install it.
    setupFiles: ["test/ts/support/node-core.ts"],
    // Stops before any test when dist/, the addon or the WebAssembly build is older than its sources.
    globalSetup: ["test/ts/support/fresh-build.ts"],
  },
});
