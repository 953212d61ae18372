// The files a patch changes, read from its text: what `git apply`, `patch` and apply_patch tools
// change, so that a summary lists them without the patch's lines.
//
//   patch_changes("--- a/src/x.py\n+++ b/src/x.py\n@@ ...");          // {{Edited, "src/x.py"}}
//   patch_changes("*** Begin Patch\n*** Add File: docs/y.md\n+...");  // {{Created, "docs/y.md"}}
#pragma once

#include <string_view>
#include <vector>

#include "ctxwin/compaction/file_effect.hpp"

namespace ctxwin {

// A unified diff (`--- a/x` / `+++ b/x`, `diff --git a/x b/y`, `rename from` / `rename to`,
// /dev/null for a file created or deleted; the a/ and b/ prefixes taken off) or an apply_patch
// envelope (`*** Update File: x`, `*** Add File: x`, `*** Delete File: x`, `*** Move to: y`).
// Each file once, in the patch's order.
std::vector<FileEffect> patch_changes(std::string_view patch);

}  // namespace ctxwin
