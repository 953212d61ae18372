#include "ctxwin/compaction/shell_command.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

using Paths = std::vector<std::string>;

// "E path" (edited), "C path" (created), "D path" (deleted), "M from -> to" (moved).
Paths effects(const ShellReading& r) {
  Paths out;
  for (const auto& e : r.changes) {
    switch (e.change) {
      case FileChange::Edited:
        out.push_back("E " + e.path);
        break;
      case FileChange::Created:
        out.push_back("C " + e.path);
        break;
      case FileChange::Deleted:
        out.push_back("D " + e.path);
        break;
      case FileChange::Moved:
        out.push_back("M " + e.from + " -> " + e.path);
        break;
    }
  }
  return out;
}

struct ChangeCase {
  const char* command;
  Paths changes;
};

// Commands written the way coding agents write them (mini-swe-agent, SWE-agent's bash tool,
// OpenHands, Codex, Claude Code), each with the files it changes.
TEST(ReadShellCommand, FileChangesAgentsMakeThroughTheShell) {
  const std::vector<ChangeCase> cases = {
      {"sed -i 's/^    regex = r.\\^/    regex = r\"\\\\A/' django/contrib/auth/validators.py", {"E django/contrib/auth/validators.py"}},
      {"sed -i.bak -e 's/foo/bar/' -e '/^$/d' src/a.py src/b.py", {"E src/a.py", "E src/b.py"}},
      {"sed -Ei 's/(x)/\\1y/' lib/x.rb", {"E lib/x.rb"}},
      {"sed --in-place=.orig '12d' setup.cfg", {"E setup.cfg"}},
      {"cd /testbed && sed -i '45,47d' sympy/core/expr.py && python reproduce.py", {"E sympy/core/expr.py"}},
      {"cd django && sed -i 's/a/b/' db/models/query.py", {"E django/db/models/query.py"}},
      {"cat <<'EOF' > reproduce_issue.py\nimport re\nfrom django.core.exceptions import ValidationError\nprint(\"x\")\nEOF",
       {"E reproduce_issue.py"}},
      {"cat > /tmp/test_fix.py << \"PYEOF\"\nprint('EOF inside is fine')\nPYEOF\npython /tmp/test_fix.py", {"E /tmp/test_fix.py"}},
      {"cat <<-END >> notes.txt\n\tappended line\n\tEND", {"E notes.txt"}},
      {"echo 'pytest>=7' >> requirements-dev.txt", {"E requirements-dev.txt"}},
      {"printf '%s\\n' 'a' 'b' > data/list.txt 2>/dev/null", {"E data/list.txt"}},
      {"python - <<'PY'\nfrom pathlib import Path\np = Path('astropy/io/fits/card.py')\ns = p.read_text()\ns = s.replace('a', "
       "'b')\np.write_text(s)\nPY",
       {"E astropy/io/fits/card.py"}},
      {"python3 -c \"import re; t=open('src/app.py').read(); open('src/app.py','w').write(t.replace('x','y'))\"", {"E src/app.py"}},
      {"cat <<'EOF' | tee src/config.ts > /dev/null\nexport const x = 1;\nEOF", {"E src/config.ts"}},
      {"tee -a CHANGELOG.md <<< '- fixed the parser'", {"E CHANGELOG.md"}},
      {"perl -pi -e 's/\\bfoo\\b/bar/g' lib/a.pl lib/b.pl", {"E lib/a.pl", "E lib/b.pl"}},
      {"perl -i.bak -pe 's/x/y/' conf/app.conf", {"E conf/app.conf"}},
      {"ed -s sympy/printing/latex.py <<'EOF'\n/def _print_Mul/\n+2d\nw\nq\nEOF", {"E sympy/printing/latex.py"}},
      {"mv src/old_name.py src/new_name.py", {"M src/old_name.py -> src/new_name.py"}},
      {"git mv docs/a.md docs/guide/", {"M docs/a.md -> docs/guide/a.md"}},
      {"rm -f reproduce.py test_fix.py && rm -rf build/", {"D reproduce.py", "D test_fix.py", "D build/"}},
      {"rm -- -weird-name.txt", {"D -weird-name.txt"}},
      {"cp tests/fixtures/base.json tests/fixtures/extra.json", {"C tests/fixtures/extra.json"}},
      {"cp -t backup/ a.py b.py", {"C backup/a.py", "C backup/b.py"}},
      {"touch src/pkg/__init__.py src/pkg/py.typed", {"C src/pkg/__init__.py", "C src/pkg/py.typed"}},
      {"git apply <<'EOF'\ndiff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\nEOF", {"E src/x.py"}},
      {"cat > /tmp/fix.patch <<'EOF'\n--- a/lib/util.js\n+++ b/lib/util.js\n@@ -1 +1 @@\n-x\n+y\nEOF\ngit apply /tmp/fix.patch",
       {"E /tmp/fix.patch", "E lib/util.js"}},
      {"patch -p1 <<'EOF'\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-old\n+new\nEOF", {"E README.md"}},
      {"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/main.rs\n@@\n-a\n+b\n*** Add File: src/extra.rs\n+pub fn f() {}\n*** "
       "Delete File: src/old.rs\n*** End Patch\nEOF",
       {"E src/main.rs", "C src/extra.rs", "D src/old.rs"}},
      {"git checkout -- django/db/models/query.py", {"E django/db/models/query.py"}},
      {"git restore src/a.ts", {"E src/a.ts"}},
      {"black src/app.py && isort src/app.py", {"E src/app.py", "E src/app.py"}},
      {"npx prettier --write src/index.ts", {"E src/index.ts"}},
      {"bash -lc \"sed -i 's/1/2/' version.txt && cat version.txt\"", {"E version.txt"}},
      {"for f in a.py b.py; do sed -i 's/x/y/' $f; done", {}},
      {"if [ -f old.cfg ]; then rm old.cfg; fi", {"D old.cfg"}},
      {"node -e \"require('fs').writeFileSync('out/report.json', JSON.stringify(r))\"", {"E out/report.json"}},
      {"sort -u words.txt -o words.txt", {"E words.txt"}},
  };
  for (const auto& c : cases) {
    const ShellReading r = read_shell_command(c.command);
    EXPECT_EQ(effects(r), c.changes) << c.command;
    EXPECT_FALSE(r.read_only) << c.command;
  }
}

// A read-only line changes nothing and says so: what it prints is content.
TEST(ReadShellCommand, ReadOnlyCommandsAreNeverEdits) {
  for (const char* command : {
           "sed -n '890,910p' django/db/models/sql/schema.py",
           "nl -ba sympy/core/numbers.py | sed -n '1200,1260p'",
           "cat ./django/contrib/auth/validators.py",
           "grep -rn \"except KeyError\" django/ | head -20",
           "grep -n 'def _print_Mul' sympy/printing/latex.py",
           "find . -name '*.py' -path '*auth*' | xargs grep -l UsernameValidator",
           "find /testbed -name \"validators.py\" -exec grep -n regex {} \\;",
           "ls -la && pwd",
           "cd /testbed && git diff",
           "git show HEAD~1 --stat",
           "git log --oneline -5 && git status",
           "head -50 setup.py; tail -n 20 CHANGES.rst",
           "python -c \"print(open('astropy/units/core.py').read()[:3000])\"",
           "wc -l src/*.ts",
           "diff -u a.txt b.txt",
           "echo $PATH",
           "awk 'NR>=10 && NR<=20' src/main.c",
           "rg -n 'TODO' --glob '*.ts'",
           "cat file.txt > /dev/null 2>&1",
           "git stash list",
           "command -v pytest",
           "less +G logs/app.log",
       }) {
    const ShellReading r = read_shell_command(command);
    EXPECT_TRUE(r.read_only) << command;
    EXPECT_TRUE(r.changes.empty()) << command;
    EXPECT_FALSE(r.runs_tests) << command;
  }
  // ...and not one that writes, runs code or builds.
  for (const char* command : {"python reproduce.py", "sed -n '1,5p' a.py > b.py", "cat <<'EOF' > x.py\nEOF", "make", "pip install -e .",
                              "python -c \"import django; print(django.VERSION)\"", "find . -name '*.pyc' -delete", "git stash",
                              "npm run build", "grep x a.txt | tee hits.txt"}) {
    EXPECT_FALSE(read_shell_command(command).read_only) << command;
  }
}

TEST(ReadShellCommand, FilesRead) {
  EXPECT_EQ(read_shell_command("cat src/a.py && head -n 40 src/b.py").files_read, (Paths{"src/a.py", "src/b.py"}));
  EXPECT_EQ(read_shell_command("sed -n '10,20p' lib/x.py").files_read, (Paths{"lib/x.py"}));
  EXPECT_EQ(read_shell_command("grep -n 'def f' pkg/mod.py pkg/other.py").files_read, (Paths{"pkg/mod.py", "pkg/other.py"}));
  EXPECT_EQ(read_shell_command("nl -ba a.py | sed -n '5,9p'").files_read, (Paths{"a.py"}));
}

// The exit status a tool reports is the last command's: whether that is the work's.
TEST(ReadShellCommand, WhetherTheStatusIsTheWorks) {
  struct Case {
    const char* command;
    bool reliable;
    bool tests;
  };
  for (const Case& c : std::vector<Case>{
           {"python -m pytest tests/test_card.py -q", true, true},
           {"cd /testbed && python -m pytest tests/test_card.py -x 2>&1 | tail -30", false, true},
           {"python tests/runtests.py auth_tests.test_validators --verbosity=2", true, true},
           {"./tests/runtests.py --settings=test_sqlite file_storage", true, true},
           {"bin/test sympy/core/tests/test_numbers.py", true, true},
           {"npx vitest run test/billing.test.ts", true, true},
           {"npm test -- --runInBand", true, true},
           {"npm run test:unit", true, true},
           {"go test ./pkg/... -run TestParse", true, true},
           {"cargo test parser::tests", true, true},
           {"bundle exec rspec spec/models/user_spec.rb", true, true},
           {"python -m unittest tests.test_dates -v", true, true},
           {"python reproduce.py", true, false},
           {"python reproduce.py 2>&1 | head -40", false, false},
           {"make || true", false, false},
           {"python setup.py build_ext --inplace; echo done", false, false},
           {"cat a.py | grep x", true, false},
           {"timeout 60 python -m pytest -q", true, true},
           {"tox -e py311 | tee tox.log", false, true},
       }) {
    const ShellReading r = read_shell_command(c.command);
    EXPECT_EQ(r.status_reliable, c.reliable) << c.command;
    EXPECT_EQ(r.runs_tests, c.tests) << c.command;
  }
  EXPECT_EQ(read_shell_command("python -m pytest tests/test_card.py::test_long -q | tail").test_paths, (Paths{"tests/test_card.py"}));
  EXPECT_EQ(read_shell_command("python tests/runtests.py auth_tests.test_validators").test_paths, (Paths{"auth_tests.test_validators"}));
}

// Another run of the same work shares its key, whatever surrounds it.
TEST(ReadShellCommand, RunKeys) {
  EXPECT_EQ(read_shell_command("python reproduce.py").run_key,
            read_shell_command("cd /testbed && python3 reproduce.py 2>&1 | tail -5").run_key);
  EXPECT_EQ(read_shell_command("sed -i 's/a/b/' x.py && python reproduce.py").run_key, "python reproduce.py");
  EXPECT_EQ(read_shell_command("python -m pytest tests/a.py -x -q").run_key, read_shell_command("python -m pytest -q tests/a.py").run_key);
  EXPECT_NE(read_shell_command("python - <<'PY'\nprint(1)\nPY").run_key, read_shell_command("python - <<'PY'\nprint(2)\nPY").run_key);
  EXPECT_NE(read_shell_command("python -c 'print(1)'").run_key, read_shell_command("python -c 'print(2)'").run_key);
}

TEST(ParseShell, QuotesHeredocsOperatorsAndRedirections) {
  const auto commands = parse_shell(
      "FOO=1 grep -n \"a && b\" 'c;d' x\\ y.txt 2>&1 | tail -5 && cat <<'EOF' > out.txt\nline $HOME `x`\nEOF\necho $(date +%s) >> log");
  ASSERT_EQ(commands.size(), 4u);
  EXPECT_EQ(commands[0].assignments, (Paths{"FOO=1"}));
  EXPECT_EQ(commands[0].words, (Paths{"grep", "-n", "a && b", "c;d", "x y.txt"}));
  ASSERT_EQ(commands[0].redirections.size(), 1u);
  EXPECT_EQ(commands[0].redirections[0].op, ">&");
  EXPECT_EQ(commands[0].redirections[0].fd, 2);
  EXPECT_EQ(commands[0].redirections[0].target, "1");
  EXPECT_EQ(commands[0].next, "|");
  EXPECT_EQ(commands[1].words, (Paths{"tail", "-5"}));
  EXPECT_EQ(commands[1].next, "&&");
  EXPECT_EQ(commands[2].words, (Paths{"cat"}));
  ASSERT_EQ(commands[2].redirections.size(), 2u);
  EXPECT_EQ(commands[2].redirections[0].body, "line $HOME `x`\n");
  EXPECT_EQ(commands[2].redirections[1].target, "out.txt");
  EXPECT_EQ(commands[3].words, (Paths{"echo", "$(date +%s)"}));
  EXPECT_EQ(commands[3].redirections[0].op, ">>");
  EXPECT_EQ(commands[3].next, "");
  // A `cd` moves what follows; `bash -c` is read in place.
  const auto nested = parse_shell("cd repo && bash -c 'touch a.txt; ls'");
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested[1].words, (Paths{"touch", "a.txt"}));
  EXPECT_EQ(nested[1].cwd, "repo");
  // Comments and line continuations.
  const auto more = parse_shell("# look first\nls \\\n  -la # all\n");
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(more[0].words, (Paths{"ls", "-la"}));
}

TEST(ShellLabel, HeredocBodiesElided) {
  EXPECT_EQ(shell_label("cat <<'EOF' > reproduce.py\nimport x\nprint(x.f())\nEOF\npython reproduce.py"),
            "cat <<'EOF' > reproduce.py ... EOF python reproduce.py");
  EXPECT_EQ(shell_label("npm   run\tbuild"), "npm run build");
  EXPECT_EQ(shell_label(std::string(300, 'a'), 20), std::string(20, 'a') + "...");
}

// Hostile lines: unbalanced quotes, an unclosed heredoc, deep nesting, long runs of operators.
TEST(ParseShell, NeverThrowsAndStaysBounded) {
  for (const std::string& line :
       {std::string("echo 'unclosed"), std::string("cat <<EOF\nno end"), std::string("$(((((("), std::string(100000, '|'),
        std::string(50000, '('), std::string("bash -c \"bash -c 'bash -c \\\"bash -c x\\\"'\""), std::string("\\"), std::string("a\0b", 3),
        std::string("cat <<"), std::string("2>"), std::string(">& &> <<< <<-")}) {
    EXPECT_NO_THROW(read_shell_command(line)) << line.substr(0, 40);
    EXPECT_NO_THROW(shell_label(line));
  }
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "rm f" + std::to_string(i) + "; ";
  EXPECT_LE(parse_shell(many).size(), kMaxSimpleCommands);
}

}  // namespace
}  // namespace ctxwin
