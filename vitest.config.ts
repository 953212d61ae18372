import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/ts/**/*.test.ts"],
    // The addon is shared process-wide; threads keep worker start-up cheap on 2 cores.
    pool: "threads",
    testTimeout: 30000,
    // Modules of ts/ imported directly find the core installed, as the Node entry points install it.
    setupFiles: ["test/ts/support/node-core.ts"],
  },
});
