// The steps of a shell-only coding agent (mini-swe-agent, SWE-agent's bash tool), written for the
// tests the way such agents run: one `bash` call per step with its command, and the tool's answer
// in mini-swe-agent's format (`<returncode>N</returncode>` then `<output>...</output>`). The cases
// are this project's own, modelled on what such agents do on SWE-bench tasks: read with grep, cat,
// nl | sed -n; write a script with a heredoc; edit with sed -i and `python - <<'PY'`; run the script
// and the tests.
import type { MessageLike } from "ctxwin";

export type Msg = MessageLike & {
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};

export interface Step {
  command: string;
  returncode: number;
  output: string;
}

/** The two messages of a step: the assistant's call and the tool's answer. */
export function stepMessages(step: Step, id: string, thought = ""): Msg[] {
  return [
    {
      role: "assistant",
      content: thought === "" ? null : thought,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: step.command }) } }],
    } as Msg,
    { role: "tool", tool_call_id: id, content: `<returncode>${step.returncode}</returncode>\n<output>\n${step.output}\n</output>` },
  ];
}

/** A file's lines as `nl -ba | sed -n` prints them, with error handling in them. */
export function codeListing(from: number, lines: number): string {
  return Array.from({ length: lines }, (_, k) => {
    const n = from + k;
    const body = [
      `        try:`,
      `            return self._cache[key]`,
      `        except KeyError:`,
      `            raise FieldError("Error: unknown field %s" % key)`,
    ][k % 4];
    return `${String(n).padStart(6)}\t${body}`;
  }).join("\n");
}

/** What pytest prints for a run of `tests` tests of which `failed` fail (`verbose`: a line per test, -v). */
export function pytestOutput(file: string, tests: number, failed: number, verbose = false): string {
  const lines = [`============================= test session starts ==============================`, `collected ${tests} items`, ``];
  if (verbose) {
    for (let i = 0; i < tests; i++)
      lines.push(
        `${file}::TestCard::test_case_${i} ${i < failed ? "FAILED" : "PASSED"} [${String(Math.floor(((i + 1) * 100) / tests)).padStart(3)}%]`,
      );
  } else {
    lines.push(`${file} ${".".repeat(tests - failed)}${"F".repeat(failed)}`);
  }
  for (let i = 0; i < failed; i++) {
    lines.push(`_____________________________ TestCard.test_case_${i} _____________________________`);
    lines.push(`E       AssertionError: assert '1.0E-1${i}' == '1e-1${i}'`);
  }
  if (failed > 0) lines.push("=========================== short test summary info ============================");
  for (let i = 0; i < failed; i++) lines.push(`FAILED ${file}::TestCard::test_case_${i} - AssertionError`);
  lines.push(
    `========================= ${failed > 0 ? `${failed} failed, ` : ""}${tests - failed} passed in 0.4${failed}s =========================`,
  );
  return lines.join("\n");
}

/**
 * A session on a SWE-bench-like task: explore, reproduce (fails), edit through the shell, run the
 * script again (passes), run the tests (one fails, then all pass), clean up.
 */
export function fixSession(): Step[] {
  return [
    {
      command: 'grep -rn "except KeyError" django/db/models/ | head -20',
      returncode: 0,
      output: "django/db/models/query.py:890:        except KeyError:\ndjango/db/models/options.py:612:        except KeyError:",
    },
    { command: "nl -ba django/db/models/query.py | sed -n '880,920p'", returncode: 0, output: codeListing(880, 40) },
    { command: "sed -n '600,640p' django/db/models/options.py", returncode: 0, output: codeListing(600, 40) },
    {
      command:
        "cat <<'EOF' > reproduce.py\nimport django\nfrom django.conf import settings\nsettings.configure()\ndjango.setup()\nfrom app.models import Item\nprint(Item.objects.get_field('name'))\nEOF",
      returncode: 0,
      output: "",
    },
    {
      command: "cd /testbed && python reproduce.py",
      returncode: 1,
      output:
        "Traceback (most recent call last):\n  File \"/testbed/reproduce.py\", line 6, in <module>\n    print(Item.objects.get_field('name'))\n  File \"/testbed/django/db/models/query.py\", line 891, in get_field\n    return self._cache[key]\nKeyError: 'name'",
    },
    { command: "sed -i 's/return self._cache\\[key\\]/return self._cache.get(key)/' django/db/models/query.py", returncode: 0, output: "" },
    {
      command:
        "python - <<'PY'\nfrom pathlib import Path\np = Path('django/db/models/options.py')\ns = p.read_text()\np.write_text(s.replace('_cache[key]', '_cache.get(key)'))\nPY",
      returncode: 0,
      output: "",
    },
    { command: "python reproduce.py", returncode: 0, output: "<django.db.models.fields.CharField: name>" },
    {
      command: "python -m pytest tests/model_fields/test_card.py -q 2>&1 | tail -20",
      returncode: 0,
      output: pytestOutput("tests/model_fields/test_card.py", 212, 1),
    },
    {
      command: "git diff django/db/models/query.py",
      returncode: 0,
      output:
        "diff --git a/django/db/models/query.py b/django/db/models/query.py\n-            return self._cache[key]\n+            return self._cache.get(key)",
    },
    {
      command: "sed -i '891s/get(key)/get(key, None)/' django/db/models/query.py && python -m pytest tests/model_fields/test_card.py -v",
      returncode: 0,
      output: pytestOutput("tests/model_fields/test_card.py", 212, 0, true),
    },
    { command: "rm reproduce.py", returncode: 0, output: "" },
  ];
}
