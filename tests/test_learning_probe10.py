"""Issue 20 ("what ConKeeper learns is right"), probed from outside, round ten: sessions of a
Go, TypeScript or Rust project replayed through the real hooks (each event a subprocess), then
the CLI, as a checker would; each test failed before its fix.

* ``go test ./...`` failed, then its re-run was interrupted (Ctrl-C): ``reflect`` said nothing
  was open ("Nothing notable to recommend"), as if the interrupted re-run had settled the
  failure; an interrupted run settles nothing, so the failure it re-ran stays the last word
  ("still failing", with the interrupted re-run quoted);
* ``stale`` read `make -j4 test` as the target "-j4" and `yarn workspace web build` as the
  script "workspace", and called both entries gone ("no such target in Makefile", "no such
  script in package.json") while both commands work; make's options and variable settings are
  no targets, `-C dir` points at another Makefile, and yarn's own commands name no script;
* ``stale`` read only the first command of `make lint && make e2e` (nor `FOO=1 make seed` or
  `time make bench`): the e2e target went away unreported; each command of a chain is read,
  after what sets it up (a terminal session's `$` prompt line stays no citation), and no
  target after a `cd`;
* ``stale`` never checked an option of the project's own program cited in backticks
  (`--dry-run`, `./bin/shopctl sync --dry-run`): the option dropped from `src/cli.ts`, the entry
  stayed "fresh"; a multi-word option is looked for as a name is (gone when it was in the code
  when the entry was written and is nowhere in it now; a one-word one, `--force`, is not);
* ``stale`` never checked `tox -e docs`: the environment dropped from tox.ini went unreported;
  each environment of `tox -e` is looked for in the tox configuration (tox.ini, tox.toml, or
  a pyproject.toml / setup.cfg that configures tox), the ones tox makes up (`py312`) aside;
* ``go test ./cart/...`` failed during prompt 1, prompt 2 asked for a README section (the
  agent edited README.md), prompt 3 fixed the test: the bugfix observation said "Fix failing go
  tests in README.md and cart.go" and "during prompt 3 ... the fix changed README.md", and
  prompt 2's work had no observation at all; the fix's edits are those of the prompts that
  worked on the failure (the failing one after it, those that ran the check again, the one it
  passed in), other prompts' edits only when those made none;
* ``stale`` never read a Rust path of more than two segments (`crate::pricing::apply_discount`,
  `cart::Cart::total_cents`) as a citation: both functions renamed, the entries stayed
  "fresh"; the module path before the last owner is dropped, as a Python package path is;
* "no. again with the console.log. use the logger from src/lib/log.ts" became the rule "Use
  log, not the console; use the logger from src/lib/log.ts." (and "again with the
  fmt.Println. use slog" "Use Println, not the fmt; use slog."): the dot inside a name was
  read as the stop between what was used and what to use; only a comma, a colon, a dash or a
  full stop ending a sentence sets them apart;
* "Stop using any in TypeScript. Use unknown and narrow it." became the rule "Stop using any in
  TypeScript; Use unknown and narrow it.": a later part joined after "; " kept the capital of
  the sentence it was; its order verb is in lower case now (a name, `Go`, `JSON`, is kept);
* in a Gemini CLI session of a Rust project, "違います。unwrap() は使わないでください、? を
  使ってください。" ("don't use unwrap(), use ?") became the rule "unwrap() は使わないで
  ください、。を使ってください。": Rust's `?` operator was read as a question mark ending a
  sentence, and the rule lost what it asks for (so "用 ? 运算符" in Chinese); an ASCII "?" or
  "!" ends a sentence only right after a word of the language, never inside a code span;
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from test_freshness_stale import DAY, T0, by_line, commit, git, stale_json, write
from test_learning_probe9 import _gemini, _shell
from test_reflect_facts import NamedSession, _bash, _edit

GO_FAILURE = (
    "Exit code 1\n--- FAIL: TestApplyCoupon (0.00s)\n    cart_test.go:14: got 90, want 85\n"
    "FAIL\texample.com/shop/cart\t0.004s"
)


def _go_project(s: NamedSession) -> None:
    """A Go module with its memory folder (``.git`` marks the work-tree root)."""
    (s.project / ".git").mkdir(parents=True)
    (s.project / "go.mod").write_text("module example.com/shop\n\ngo 1.22\n", encoding="utf-8")
    init = run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=s.project)
    assert init.returncode == 0, init.stderr


def _reflect(s: NamedSession) -> dict[str, Any]:
    result = run_cli("reflect", "--session", s.session_id, "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_an_interrupted_rerun_leaves_the_failure_it_reran_open(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-ctrlc")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the coupon total in cart/cart.go")
    _edit(s, "cart/cart.go")
    _bash(s, "go build ./...")
    _bash(s, "go vet ./...")
    _bash(s, "go test ./...", error=GO_FAILURE)
    _edit(s, "cart/cart.go")
    s.tool("Bash", {"command": "go test ./..."}, error="Interrupted by user", interrupt=True)
    s.hook("Stop", stop_hook_active=False)
    s.hook("SessionEnd", reason="exit")
    found = [r for r in _reflect(s)["recommendations"] if r["kind"] == "abandoned"]
    assert len(found) == 1, found
    assert "still failing" in found[0]["what"] and "go test ./..." in found[0]["what"]
    assert any("interrupted" in why for why in found[0]["why"]), found[0]


def test_a_pass_after_an_interrupted_rerun_settles_the_failure(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-ctrlc-pass")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Fix the coupon total in cart/cart.go")
    _bash(s, "go build ./...")
    _bash(s, "go test ./...", error=GO_FAILURE)
    s.tool("Bash", {"command": "go test ./..."}, error="Interrupted by user", interrupt=True)
    _edit(s, "cart/cart.go")
    _bash(s, "go test ./...")
    s.hook("SessionEnd", reason="exit")
    kinds = [r["kind"] for r in _reflect(s)["recommendations"]]
    assert "abandoned" not in kinds, kinds


TS_MEMORY = """# Patterns

## Tooling
- Run `make -j4 test` before pushing.
- Build the web app with `yarn workspace web build`.
- Check everything with `make lint && make e2e`.
- Preview a sync with `--dry-run` first.
- Docs build in `tox -e docs`; the unit tests in `tox -e py312`.
"""
CLI_TS = """import { Command } from "commander";
export const program = new Command("shopctl")
  .option("--dry-run", "print what would change")
  .option("--limit <n>", "how many orders");
"""
TOX_INI = "[tox]\nenv_list = py312, docs\n\n[testenv]\ncommands = pytest\n\n[testenv:docs]\n"


def _ts_repo(tmp_path: Path) -> Path:
    """A TypeScript project whose memory cites its commands, committed on day 0."""
    root = tmp_path / "web-shop"
    root.mkdir()
    git(root, "init", "-q")
    make = "test:\n\tnpx vitest run\nlint:\n\tnpx eslint .\ne2e:\n\tnpx playwright test\n"
    write(root, "Makefile", make)
    write(root, "package.json", json.dumps({"scripts": {"build": "tsc", "test": "vitest"}}))
    write(root, "web/package.json", json.dumps({"name": "web", "scripts": {"build": "vite build"}}))
    write(root, "src/cli.ts", CLI_TS)
    write(root, "tox.ini", TOX_INI + "commands = sphinx-build docs docs/_build\n")
    write(root, ".claude/memory/patterns.md", TS_MEMORY)
    commit(root, "Project and memory", T0)
    return root


def _moved_on(root: Path) -> dict[int, dict[str, Any]]:
    """Day 1: the e2e target, the dry-run option and the docs environment are dropped (the
    README still mentions the option: a document keeps no name alive); the findings by line."""
    assert stale_json(root, "--no-cache")["findings"] == []  # every entry true on day 0
    write(root, "Makefile", "test:\n\tnpx vitest run\nlint:\n\tnpx eslint .\n")
    dry_run = '  .option("--dry-run", "print what would change")\n'
    write(root, "src/cli.ts", CLI_TS.replace(dry_run, ""))
    write(root, "tox.ini", TOX_INI.replace("py312, docs", "py312").replace("[testenv:docs]\n", ""))
    write(root, "README.md", "Run `shopctl sync --dry-run` to preview.\n")
    commit(root, "Drop the e2e target, the dry run and the docs env", T0 + DAY)
    return by_line(stale_json(root, "--no-cache"))


def test_make_options_and_yarn_workspaces_are_no_targets(tmp_path: Path) -> None:
    found = _moved_on(_ts_repo(tmp_path))
    assert 4 not in found and 5 not in found, found


def test_each_command_of_a_chain_is_checked(tmp_path: Path) -> None:
    found = _moved_on(_ts_repo(tmp_path))
    assert found[6]["citation"] == "make e2e" and found[6]["reason"] == "command-gone"


def test_a_dropped_option_of_the_projects_own_program_is_stale(tmp_path: Path) -> None:
    found = _moved_on(_ts_repo(tmp_path))
    assert found[7]["citation"] == "dry-run" and found[7]["reason"] == "symbol-gone", found[7]
    assert (
        found[7]["detail"] == "in src/cli.ts when this entry was written; now nowhere in the code"
    )


def test_a_tox_environment_gone_from_tox_ini_is_stale(tmp_path: Path) -> None:
    found = _moved_on(_ts_repo(tmp_path))
    assert found[8]["citation"] == "tox -e docs" and found[8]["reason"] == "command-gone"
    assert found[8]["detail"] == "no such environment in tox.ini"


def test_rusts_question_mark_operator_stays_in_a_japanese_rule(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    (root / ".git").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "ledger"\n', encoding="utf-8")
    assert run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=root).returncode == 0
    _gemini(root, "SessionStart", source="startup")
    _gemini(root, "BeforeAgent", prompt="Add a Money type in src/money.rs backed by i64 cents")
    edit = {"file_path": str(root / "src" / "lib.rs"), "old_string": "a", "new_string": "b"}
    for _ in range(3):
        _gemini(root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={})
    _shell(root, "cargo build", "Finished `dev` profile")
    _gemini(root, "AfterAgent", prompt_response="Done.", stop_hook_active=False)
    _gemini(
        root, "BeforeAgent", prompt="違います。unwrap() は使わないでください、? を使ってください。"
    )
    _gemini(root, "AfterTool", tool_name="replace", tool_input=edit, tool_response={})
    _gemini(root, "AfterAgent", prompt_response="Fixed.", stop_hook_active=False)
    _gemini(root, "SessionEnd", reason="exit")
    result = run_cli("reflect", "--session", "gem-lint-1", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)["recommendations"]
    rules = [r["rule"] for r in found if r["kind"] == "correction-theme"]
    assert rules == ["unwrap() は使わないでください、? を使ってください。"], found


def _observations(s: NamedSession) -> list[dict[str, Any]]:
    """The session's observations, extracted now (SessionEnd's extraction runs detached)."""
    extracted = run_cli("extract", "--json", cwd=s.project, env=s.env)
    assert extracted.returncode == 0, extracted.stderr
    result = run_cli("observations", "--json", cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    found: list[dict[str, Any]] = json.loads(result.stdout)["observations"]
    return found


def _shown(s: NamedSession, number: int) -> str:
    result = run_cli("show", str(number), cwd=s.project, env=s.env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_fix_is_not_credited_with_another_prompts_edits(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-readme")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add a discount field to the Cart struct in cart/cart.go")
    _edit(s, "cart/cart.go")
    _bash(s, "go test ./cart/...", error="Exit code 1\n--- FAIL: TestDiscount (0.00s)\nFAIL")
    s.hook("Stop", stop_hook_active=False)
    s.prompt("Now also update the README section about discounts")
    _edit(s, "README.md")
    s.hook("Stop", stop_hook_active=False)
    s.prompt("The test still fails, fix TestDiscount please")
    _edit(s, "cart/cart.go")
    _bash(s, "go test ./cart/...")
    s.hook("SessionEnd", reason="exit")
    found = {o["prompt_number"]: o for o in _observations(s)}
    assert found[3]["type"] == "bugfix" and "README" not in found[3]["title"], found[3]
    assert "README.md" not in _shown(s, found[3]["id"])
    assert "README.md" in _shown(s, found[2]["id"])  # prompt 2's own work


def test_a_fix_made_in_a_quiet_prompt_is_still_the_fix(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-go-quiet")
    _go_project(s)
    s.hook("SessionStart", source="startup")
    s.prompt("Add a discount field to the Cart struct in cart/cart.go")
    _bash(s, "go test ./cart/...", error="Exit code 1\n--- FAIL: TestDiscount (0.00s)\nFAIL")
    s.prompt("Try a map keyed by coupon code instead")
    _edit(s, "cart/cart.go")
    s.prompt("Run the tests again")
    _bash(s, "go test ./cart/...")
    s.hook("SessionEnd", reason="exit")
    fixes = [o for o in _observations(s) if o["type"] == "bugfix"]
    assert len(fixes) == 1 and "cart.go" in fixes[0]["title"], fixes


RUST_MEMORY = """# Patterns

- Discounts go through `crate::pricing::apply_discount`, never by hand.
- Totals come from `cart::Cart::total_cents`.
"""
PRICING_RS = "pub fn apply_discount(cents: i64, pct: u8) -> i64 {\n    cents\n}\n"
CART_RS = (
    "pub struct Cart;\n\nimpl Cart {\n    pub fn total_cents(&self) -> i64 {\n        0\n    }\n}\n"
)


def test_a_rust_path_names_the_function_it_ends_on(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "Cargo.toml", '[package]\nname = "ledger"\nversion = "0.1.0"\n')
    write(root, "src/pricing.rs", PRICING_RS)
    write(root, "src/cart.rs", CART_RS)
    write(root, ".claude/memory/patterns.md", RUST_MEMORY)
    commit(root, "Ledger and memory", T0)
    assert stale_json(root, "--no-cache")["findings"] == []
    write(root, "src/pricing.rs", PRICING_RS.replace("apply_discount", "discount_for"))
    write(root, "src/cart.rs", CART_RS.replace("total_cents", "total"))
    commit(root, "Rename the pricing and cart functions", T0 + DAY)
    found = by_line(stale_json(root, "--no-cache"))
    assert found[3]["citation"] == "apply_discount" and found[3]["reason"] == "symbol-gone"
    assert found[4]["citation"] == "total_cents" and found[4]["reason"] == "symbol-gone"


def test_a_dotted_name_is_not_split_into_a_rule(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-ts-log")
    s.project.mkdir(parents=True)
    (s.project / ".git").mkdir()
    (s.project / "package.json").write_text('{"scripts": {"test": "vitest"}}', encoding="utf-8")
    assert (
        run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=s.project).returncode == 0
    )
    s.hook("SessionStart", source="startup")
    s.prompt("Add types to the checkout payload in src/checkout.ts")
    for text in (
        "no. again with the console.log. use the logger from src/lib/log.ts",
        "No — again with the console.log. use the logger from src/lib/log.ts",
    ):
        _edit(s, "src/checkout.ts")
        _bash(s, "npx vitest run")
        s.prompt(text)
    s.hook("SessionEnd", reason="exit")
    rules = [r["rule"] for r in _reflect(s)["recommendations"] if r["kind"] == "correction-theme"]
    assert rules == ["Use the logger from src/lib/log.ts."], rules


def test_a_rule_of_two_sentences_reads_as_one(tmp_path: Path) -> None:
    s = NamedSession(tmp_path, "sess-ts-any")
    s.project.mkdir(parents=True)
    (s.project / ".git").mkdir()
    assert (
        run_cli("init", "--yes", "--no-gitignore", "--no-retro-tag", cwd=s.project).returncode == 0
    )
    s.hook("SessionStart", source="startup")
    s.prompt("Add types to the checkout payload in src/checkout.ts")
    for text in (
        "No. Stop using any in TypeScript. Use unknown and narrow it.",
        "any again?! Stop using any in TypeScript. Use unknown and narrow it.",
    ):
        _edit(s, "src/checkout.ts")
        _bash(s, "npx tsc --noEmit")
        s.prompt(text)
    s.hook("SessionEnd", reason="exit")
    rules = [r["rule"] for r in _reflect(s)["recommendations"] if r["kind"] == "correction-theme"]
    assert rules == ["Stop using any in TypeScript; use unknown and narrow it."], rules
