#include "ctxwin/summary/task_digest.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxwin {
namespace {

std::string digest(const std::vector<std::string>& lines, bool complete = false) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  TaskDigestOptions options;
  options.complete = complete;
  return summarize_task(views, options);
}

bool contains(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

const std::vector<std::string> kSession = {
    R"({"type":"message","role":"user","content":"Due dates are one day early west of UTC. Fix it; do not touch the PDF writer."})",
    R"({"type":"message","role":"assistant","content":"Read the date utility."})",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c1","args":{"path":"src/util/dates.ts"}})",
    R"({"type":"tool_result","toolCallId":"c1","result":"export function parseIsoDate(value) { return new Date(value); }"})",
    R"j({"type":"tool_call","toolName":"edit_file","toolCallId":"c2","args":{"path":"src/util/dates.ts","find":"new Date(value)","replace":"parseInZone(value, zone)"}})j",
    R"({"type":"tool_result","toolCallId":"c2","result":"{\"replaced\":1}"})",
    R"({"type":"tool_call","toolName":"run_tests","toolCallId":"c3","args":{"filter":"export"}})",
    R"j({"type":"tool_result","toolCallId":"c3","result":"TypeScript error TS2304: Cannot find name 'parseInZone' (src/util/dates.ts:41:12)"})j",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c4","args":{"path":"src/util/date.ts"}})",
    R"({"type":"tool_result","toolCallId":"c4","result":"ENOENT: no such file or directory, open 'src/util/date.ts'"})",
    R"({"type":"tool_call","toolName":"read_file","toolCallId":"c5","args":{"path":"src/util/locale.ts"}})",
    R"({"type":"tool_result","toolCallId":"c5","result":"export const zone = 'UTC';"})",
    R"({"type":"tool_call","toolName":"run_command","toolCallId":"c6","args":{"command":"npx eslint src/util/dates.ts"}})",
    R"({"type":"tool_result","toolCallId":"c6","result":"0 problems"})",
    R"({"type":"message","role":"assistant","content":"Add the missing parseInZone helper next."})",
};

TEST(SummarizeTask, WritesTheSectionsAnAgentNeedsToContinue) {
  const std::string d = digest(kSession);
  EXPECT_TRUE(
      d.starts_with("Task (the user's words): \"Due dates are one day early west of UTC. Fix it; do not "
                    "touch the PDF writer.\"\nFiles changed"))
      << d;
  EXPECT_TRUE(contains(d, "\nFiles changed: src/util/dates.ts.\n")) << d;
  // Both failures are open: no later result shows either check passing (locale.ts is another file).
  EXPECT_TRUE(contains(
      d,
      "\nOpen problems, newest first:\n- read_file {\"path\":\"src/util/date.ts\"}: ENOENT: no such file or directory, open "
      "'src/util/date.ts' [id c4]\n"
      "- run_tests {\"filter\":\"export\"}: TypeScript error TS2304: Cannot find name 'parseInZone' (src/util/dates.ts:41:12) [id c3]\n"))
      << d;
  EXPECT_TRUE(contains(d, "\nLast command: `npx eslint src/util/dates.ts` -> \"0 problems\"\n")) << d;
  EXPECT_TRUE(contains(d, "\nNext step (last stated): \"Add the missing parseInZone helper next")) << d;
  EXPECT_TRUE(contains(d, "Earlier commands, newest first: run_tests {\"filter\":\"export\"} -> \"failed: TypeScript error TS2304")) << d;
  EXPECT_TRUE(contains(d, "Files read: src/util/date.ts and src/util/locale.ts")) << d;
  EXPECT_TRUE(contains(d, "Tools called: read_file 3 times, edit_file once, run_tests once and run_command once")) << d;
  EXPECT_FALSE(contains(d, "Figures")) << d;
}

TEST(SummarizeTask, TheMostNeededSectionsComeFirst) {
  const std::string d = digest(kSession);
  const auto at = [&](std::string_view s) { return d.find(s); };
  EXPECT_LT(at("Task"), at("Files changed"));
  EXPECT_LT(at("Files changed"), at("Open problems"));
  EXPECT_LT(at("Open problems"), at("Last command"));
  EXPECT_LT(at("Last command"), at("Next step"));
  EXPECT_LT(at("Next step"), at("Earlier commands"));
  EXPECT_LT(at("Earlier commands"), at("Files read"));
}

TEST(SummarizeTask, ALaterPassOfTheSameCheckResolvesItsProblem) {
  std::vector<std::string> lines(kSession.begin(), kSession.end());
  lines.push_back(R"({"type":"tool_call","toolName":"run_tests","toolCallId":"c7","args":{"filter":"export"}})");
  lines.push_back(R"j({"type":"tool_result","toolCallId":"c7","result":"Tests  0 failed | 212 passed (212)"})j");
  const std::string d = digest(lines);
  const std::size_t resolved = d.find("\nResolved problems, newest first:\n- run_tests {\"filter\":\"export\"}: TypeScript error TS2304");
  EXPECT_NE(resolved, std::string::npos) << d;
  EXPECT_EQ(d.find("TS2304"), d.find("TS2304", d.find("Resolved problems"))) << d;  // only among the resolved
  EXPECT_TRUE(contains(d, "Last command: run_tests {\"filter\":\"export\"} -> \"Tests 0 failed | 212 passed (212)\"")) << d;
}

TEST(SummarizeTask, ErrorEventsAndHostileInput) {
  const std::string d = digest({R"({"type":"tool_call","toolName":"deploy","toolCallId":"x","args":{}})",
                                R"({"type":"error","toolCallId":"x","error":"permission denied"})", "{not json", std::string("\0\xff", 2)});
  EXPECT_TRUE(contains(d, "Open problems, newest first:\n- deploy: permission denied [id x]")) << d;
  EXPECT_TRUE(contains(d, "Last command: deploy -> \"failed: permission denied\"")) << d;
  EXPECT_EQ(digest({}), "Nothing to carry over: no messages or tool calls.");
}

TEST(SummarizeTask, NumbersOnlyWithWhatTheyCount) {
  // A run's output full of figures: none reaches the digest as a bare list; the last line the
  // command ended with is its outcome, and a finding keeps its numbers in its sentence.
  const std::string d = digest({
      R"({"type":"message","role":"user","content":"Report churn per plan."})",
      R"({"type":"message","role":"assistant","content":"Q1 churn: Basic 7.9%, Pro 3.1%. Now ARPU per plan."})",
      R"({"type":"tool_call","toolName":"run_command","toolCallId":"r1","args":{"command":"python out/analysis.py","timeoutMs":30000}})",
      R"({"type":"tool_result","toolCallId":"r1","result":"1843.75 Received\nReceived 1823.5\n4 ms\nsaved out/churn.png\nexit code 0"})",
  });
  EXPECT_FALSE(contains(d, "Figures")) << d;
  EXPECT_FALSE(contains(d, "1843.75")) << d;
  EXPECT_TRUE(contains(d, "Last command: `python out/analysis.py` -> \"saved out/churn.png; exit code 0\"")) << d;
  EXPECT_TRUE(contains(d, "\"Q1 churn: Basic 7.9%, Pro 3.1%\"")) << d;
}

TEST(SummarizeTask, TheNextStepIsOneNotTakenYet) {
  // "Let me read it" was followed by its call: done. "Next I'll ..." without a call is the next step.
  const std::string d = digest({
      R"({"type":"message","role":"user","content":"Fix the ranking."})",
      R"({"type":"message","role":"assistant","content":"Still failing. Next I'll give an exact name match a bonus in scoreHit."})",
      R"({"type":"message","role":"user","content":"Also add a line to CHANGELOG.md."})",
      R"({"type":"message","role":"assistant","content":"Will do. Let me read the changelog first."})",
      R"({"type":"tool_call","toolName":"read_file","toolCallId":"f1","args":{"path":"CHANGELOG.md"}})",
      R"({"type":"tool_result","toolCallId":"f1","result":"# Changelog"})",
  });
  EXPECT_TRUE(contains(d, "Next step (last stated): \"Next I'll give an exact name match a bonus in scoreHit.\"")) << d;
  EXPECT_TRUE(contains(d, "The user later said, newest first: \"Also add a line to CHANGELOG.md.\"")) << d;
}

TEST(SummarizeTask, ATaskTooLongToQuoteKeepsItsConstraints) {
  std::string task = "Migrate the billing service to the new ledger API.";
  for (int i = 0; i < 40; ++i) task += " Context sentence number " + std::to_string(i) + " about the service.";
  task += " Do not change the public signature of charge().";
  const std::string d = digest({R"({"type":"message","role":"user","content":")" + task + R"("})"});
  EXPECT_TRUE(contains(d, "Task (the user's words): \"Migrate the billing service")) << d;
  EXPECT_TRUE(contains(d, "\nConstraints (the user's words): \"Do not change the public signature of charge().\"")) << d;
  // The quote is cut after a whole word, never inside one.
  const std::size_t cut = d.find("...\"");
  ASSERT_NE(cut, std::string::npos) << d;
  const std::string head = "Task (the user's words): \"";
  const std::size_t start = d.find(head) + head.size();
  const std::string quote = d.substr(start, cut - start);
  ASSERT_TRUE(task.starts_with(quote)) << quote;
  EXPECT_EQ(task[quote.size()], ' ') << quote;
}

TEST(SummarizeTask, LeavesTheProblemsOutWhenTheCallerGivesTheRecord) {
  std::vector<std::string> lines(kSession.begin(), kSession.end());
  lines.push_back(R"({"type":"problems","given":true})");
  const std::string d = digest(lines);
  EXPECT_FALSE(contains(d, "Open problems")) << d;
  EXPECT_TRUE(contains(d, "Last command:")) << d;
}

TEST(SummarizeTask, BoundedListsUnlessComplete) {
  std::vector<std::string> lines;
  for (int i = 0; i < 20; ++i) {
    const std::string id = std::to_string(i);
    lines.push_back(R"({"type":"tool_call","toolName":"read_file","toolCallId":")" + id + R"(","args":{"path":"src/f)" + id + R"(.ts"}})");
    lines.push_back(R"({"type":"tool_result","toolCallId":")" + id + R"(","result":"ok"})");
  }
  EXPECT_TRUE(contains(digest(lines), "and 12 more")) << digest(lines);
  const std::string all = digest(lines, true);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(contains(all, "src/f" + std::to_string(i) + ".ts")) << all;
}

// A tool call and its result as JSON lines, for a session written the way agents run.
void call(std::vector<std::string>& lines, const std::string& id, const std::string& tool, const std::string& args,
          const std::string& result) {
  lines.push_back(R"({"type":"tool_call","toolName":")" + tool + R"(","toolCallId":")" + id + R"(","args":)" + args + "}");
  std::string escaped;
  for (char c : result) {
    if (c == '"' || c == '\\') escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped += c;
  }
  lines.push_back(R"({"type":"tool_result","toolCallId":")" + id + R"(","result":")" + escaped + "\"}");
}

// A shell-only agent (mini-swe-agent): it reads with grep, cat and sed -n, writes a script with a
// heredoc, edits with sed -i, removes the script. Every file it changed is listed; nothing it read
// is an open problem.
TEST(SummarizeTask, FilesAShellAgentChanged) {
  std::vector<std::string> lines = {R"({"type":"message","role":"user","content":"UsernameValidator allows a trailing newline. Fix it."})"};
  call(lines, "c1", "bash", R"({"command":"grep -rn \"regex = \" django/contrib/auth/validators.py"})",
       "<returncode>0</returncode>\n<output>\n10:    regex = r'^[\\w.@+-]+$'\n20:    regex = r'^[\\w.@+-]+$'\n</output>");
  call(lines, "c2", "bash", R"({"command":"sed -n '1,30p' django/contrib/auth/validators.py"})",
       "<returncode>0</returncode>\n<output>\nfrom django.core.exceptions import ValidationError\n    except ValidationError:\n        "
       "raise\n</output>");
  call(
      lines, "c3", "bash",
      R"({"command":"cat <<'EOF' > reproduce_issue.py\nfrom django.contrib.auth.validators import ASCIIUsernameValidator\nASCIIUsernameValidator()('user\\n')\nEOF"})",
      "<returncode>0</returncode>\n<output>\n</output>");
  call(lines, "c4", "bash", R"({"command":"python reproduce_issue.py"})",
       "<returncode>0</returncode>\n<output>\naccepted: 'user\\n'\n</output>");
  call(lines, "c5", "bash",
       R"({"command":"sed -i \"s/r'^\\\\[/r'\\\\\\\\A[/\" django/contrib/auth/validators.py && python reproduce_issue.py"})",
       "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"reproduce_issue.py\", line 2, in "
       "<module>\ndjango.core.exceptions.ValidationError: ['Enter a valid username.']\n</output>");
  call(lines, "c6", "bash", R"({"command":"rm reproduce_issue.py && git diff"})",
       "<returncode>0</returncode>\n<output>\ndiff --git a/x b/x\n</output>");
  const std::string d = digest(lines);
  EXPECT_TRUE(contains(d, "\nFiles changed: reproduce_issue.py (deleted) and django/contrib/auth/validators.py.\n")) << d;
  EXPECT_FALSE(contains(d, "except ValidationError")) << d;
  EXPECT_FALSE(contains(d, "sed -n")) << d;  // a read is neither the last command nor an earlier one
  EXPECT_TRUE(contains(d,
                       "Open problems, newest first:\n- `sed -i \"s/r'^\\\\[/r'\\\\\\\\A[/\" django/contrib/auth/validators.py && python "
                       "reproduce_issue.py`: "
                       "File \"reproduce_issue.py\", line 2, in <module> | django.core.exceptions.ValidationError: ['Enter a valid "
                       "username.'] | exit code 1 [id c5]"))
      << d;
  EXPECT_FALSE(contains(d, "/returncode")) << d;  // a tag is not a path
  EXPECT_TRUE(contains(d, "Last command: `rm reproduce_issue.py && git diff`")) << d;
}

// Edit tools: SWE-agent's str_replace_editor, Claude Code's Edit / Write / Bash, Codex's apply_patch.
TEST(SummarizeTask, FilesEditToolsChanged) {
  std::vector<std::string> lines = {R"({"type":"message","role":"user","content":"Add a --json flag."})"};
  call(lines, "a", "str_replace_editor", R"({"command":"view","path":"/testbed/src/cli.py"})",
       "Here's the result of running `cat -n` on /testbed/src/cli.py:\n     1\timport argparse");
  call(lines, "b", "str_replace_editor", R"({"command":"str_replace","path":"/testbed/src/cli.py","old_str":"a","new_str":"b"})",
       "The file /testbed/src/cli.py has been edited.");
  call(lines, "c", "str_replace_editor", R"({"command":"str_replace","path":"/testbed/src/missing.py","old_str":"a","new_str":"b"})",
       "Error: the path /testbed/src/missing.py does not exist.");
  call(lines, "d", "str_replace_editor", R"({"command":"create","path":"/testbed/tests/test_json.py","file_text":"def test(): pass"})",
       "File created successfully at: /testbed/tests/test_json.py");
  call(lines, "e", "Edit", R"({"file_path":"/repo/README.md","old_string":"a","new_string":"b"})",
       "The file /repo/README.md has been updated.");
  call(lines, "f", "Write", R"({"file_path":"/repo/docs/json.md","content":"# JSON"})", "File created successfully");
  call(lines, "g", "Bash", R"({"command":"git mv /repo/docs/old.md /repo/docs/legacy.md"})", "");
  call(lines, "h", "apply_patch", R"({"input":"*** Begin Patch\n*** Add File: src/fmt.py\n+x = 1\n*** End Patch"})", "Done!");
  call(lines, "i", "Read", R"({"file_path":"/repo/setup.cfg"})", "[metadata]\nname = x");
  const std::string d = digest(lines);
  EXPECT_TRUE(contains(d,
                       "\nFiles changed: /testbed/src/cli.py, /testbed/tests/test_json.py (created), /repo/README.md, /repo/docs/json.md, "
                       "/repo/docs/legacy.md (moved from /repo/docs/old.md) and src/fmt.py (created).\n"))
      << d;
  EXPECT_FALSE(contains(d, "Files changed: /testbed/src/missing.py")) << d;
  EXPECT_TRUE(contains(d, "Files read: /repo/setup.cfg")) << d;
  EXPECT_FALSE(contains(d, "Files read: /testbed/src/cli.py")) << d;  // changed, not only read
}

// SWE-agent 0.x's interface: `open` and `search_*` read, `create` makes a file, `edit N:M` changes
// the file its viewer has open (its results say which); a rejected edit changed nothing.
TEST(SummarizeTask, FilesSweAgentsInterfaceChanged) {
  std::vector<std::string> lines = {R"({"type":"message","role":"user","content":"Fix the NPE in the parser."})"};
  call(lines, "s1", "search_dir", R"({"command":"search_dir NullPointerException src"})",
       "Found 3 matches for \"NullPointerException\" in /repo/src:\n/repo/src/Parser.java (2 matches)");
  call(lines, "s2", "open", R"({"command":"open src/main/java/Parser.java 120"})",
       "[File: /repo/src/main/java/Parser.java (300 lines total)]\n(120 more lines above)\n121:        } catch (NullPointerException e) "
       "{\n122:            throw new IllegalStateException(\"Error: no node\");\n(Open file: /repo/src/main/java/Parser.java)\n(Current "
       "directory: /repo)\nbash-$");
  call(lines, "s3", "edit", R"({"command":"edit 121:122\n        } catch (IllegalArgumentException e) {\nend_of_edit"})",
       "Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the "
       "file.\n\nERRORS:\n- ';' expected");
  call(lines, "s4", "edit",
       R"({"command":"edit 121:122\n        } catch (IllegalArgumentException e) {\n            return null;\nend_of_edit"})",
       "[File: /repo/src/main/java/Parser.java (300 lines total)]\n121:        } catch (IllegalArgumentException e) {\nFile updated. "
       "Please review the changes.\n(Open file: /repo/src/main/java/Parser.java)");
  call(lines, "s5", "create", R"({"command":"create Repro.java"})",
       "[File: /repo/Repro.java (1 lines total)]\n1:\n(Open file: /repo/Repro.java)");
  const std::string d = digest(lines);
  EXPECT_TRUE(contains(d, "\nFiles changed: /repo/src/main/java/Parser.java and Repro.java (created).\n")) << d;
  // The viewer's code is not an error; the rejected edit was, and the next edit on the range resolved it.
  EXPECT_FALSE(contains(d, "no node")) << d;
  EXPECT_FALSE(contains(d, "Open problems")) << d;
  EXPECT_TRUE(contains(d, "Resolved problems, newest first:\n- `edit 121:122`: Your proposed edit has introduced new syntax error(s)"))
      << d;
}

}  // namespace
}  // namespace ctxwin
