#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctxwin/compaction/patch_text.hpp"
#include "ctxwin/compaction/script_writes.hpp"
#include "file_effect_print.hpp"

namespace ctxwin {
namespace {

using Effects = std::vector<FileEffect>;

TEST(PatchChanges, UnifiedDiffs) {
  EXPECT_EQ(patch_changes("diff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n"),
            (Effects{{FileChange::Edited, "src/x.py", ""}}));
  EXPECT_EQ(patch_changes("--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+hi\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"),
            (Effects{{FileChange::Created, "docs/new.md", ""}, {FileChange::Deleted, "old.txt", ""}}));
  EXPECT_EQ(patch_changes("diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"),
            (Effects{{FileChange::Moved, "b.py", "a.py"}}));
  // `diff -u` without a/ and b/, with timestamps.
  EXPECT_EQ(patch_changes("--- lib/util.c\t2024-01-01 10:00:00\n+++ lib/util.c\t2024-01-02 10:00:00\n@@ -1 +1 @@\n"),
            (Effects{{FileChange::Edited, "lib/util.c", ""}}));
  EXPECT_TRUE(patch_changes("no patch here\n-just a line\n").empty());
}

TEST(PatchChanges, ApplyPatchEnvelopes) {
  EXPECT_EQ(patch_changes("*** Begin Patch\n*** Update File: src/app.ts\n@@ class App\n-  a\n+  b\n*** Move to: src/main.ts\n"
                          "*** Add File: src/util.ts\n+export {}\n*** Delete File: src/legacy.ts\n*** End Patch"),
            (Effects{{FileChange::Moved, "src/main.ts", "src/app.ts"},
                     {FileChange::Created, "src/util.ts", ""},
                     {FileChange::Deleted, "src/legacy.ts", ""}}));
}

TEST(ScriptChanges, ReadModifyWritePrograms) {
  bool writes = false;
  EXPECT_EQ(script_changes("import re\nfrom pathlib import Path\npath = Path(\"sympy/core/numbers.py\")\ntext = path.read_text()\n"
                           "text = re.sub(r'x', 'y', text)\npath.write_text(text)\n",
                           &writes),
            (Effects{{FileChange::Edited, "sympy/core/numbers.py", ""}}));
  EXPECT_TRUE(writes);
  EXPECT_EQ(script_changes("with open('django/db/models/query.py') as f:\n    s = f.read()\ns = s.replace('a', 'b')\n"
                           "with open('django/db/models/query.py', 'w') as f:\n    f.write(s)\n"),
            (Effects{{FileChange::Edited, "django/db/models/query.py", ""}}));
  // Written through a name no literal binds: the file it read is the one written back.
  EXPECT_EQ(script_changes("fn = 'src/a.py'\nsrc = open(fn).read()\nopen(fn, mode='w').write(src.upper())"),
            (Effects{{FileChange::Edited, "src/a.py", ""}}));
  EXPECT_EQ(
      script_changes(
          "import shutil, os\nshutil.copy('a/base.cfg', 'a/local.cfg')\nos.rename('x/old.py', 'x/new.py')\nos.remove('tmp/scratch.txt')"),
      (Effects{{FileChange::Created, "a/local.cfg", ""},
               {FileChange::Moved, "x/new.py", "x/old.py"},
               {FileChange::Deleted, "tmp/scratch.txt", ""}}));
  EXPECT_EQ(script_changes(
                "import fileinput\nfor line in fileinput.input('setup.cfg', inplace=True):\n    print(line.replace('a', 'b'), end='')"),
            (Effects{{FileChange::Edited, "setup.cfg", ""}}));
  EXPECT_EQ(script_changes("const fs = require('fs'); fs.appendFileSync('logs/run.log', 'x'); fs.unlinkSync('dist/old.js')"),
            (Effects{{FileChange::Edited, "logs/run.log", ""}, {FileChange::Deleted, "dist/old.js", ""}}));
}

TEST(ScriptChanges, ProgramsThatOnlyRead) {
  bool writes = true;
  EXPECT_TRUE(script_changes("print(open('astropy/units/core.py').read()[:2000])", &writes).empty());
  EXPECT_FALSE(writes);
  EXPECT_TRUE(script_changes("import json\nprint(json.load(open('package.json'))['version'])", &writes).empty());
  EXPECT_FALSE(writes);
  // A string that mentions writing is not a write.
  EXPECT_TRUE(script_changes("print(\"open('x.py', 'w')\")  # write_text(", &writes).empty());
  EXPECT_FALSE(writes);
}

TEST(ScriptChanges, HostileInputIsBounded) {
  std::string code;
  for (int i = 0; i < 20000; ++i) code += "p = Path(Path(Path('a/b.py')))\nopen(p, 'w').write(\"\"\"x\n";
  EXPECT_NO_THROW(script_changes(code));
  EXPECT_NO_THROW(script_changes(std::string(200000, '(') + ".write_text("));
  EXPECT_NO_THROW(script_changes(std::string("'''unclosed")));
  EXPECT_FALSE(looks_like_file_literal("w"));
  EXPECT_FALSE(looks_like_file_literal("utf-8"));
  EXPECT_FALSE(looks_like_file_literal("\\d+/\\d+"));
  EXPECT_TRUE(looks_like_file_literal("setup.cfg"));
  EXPECT_TRUE(looks_like_file_literal("src/Makefile"));
}

}  // namespace
}  // namespace ctxwin
