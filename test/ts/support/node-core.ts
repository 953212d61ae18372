// Tests that import a module of ts/ directly (not through the package's entry) get the core the
// package's Node entry points load: the loader installs it while this file is imported.
import "../../../ts/runtime/node-loader.js";
