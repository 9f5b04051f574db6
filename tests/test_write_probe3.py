"""A third round on "nothing the user wrote is ever lost", from outside.

The shape swept here: a command reads a person's file, decides what to change, and only then
takes the write lock. Whatever another writer (a person in an editor, a second ConKeeper
process) did in between must survive. Each race is made certain with a real CLI process that
stops at its first write-path call (:func:`paused_cli`) until the test, playing the person or
the other session, has done its part: no sleeps.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import cli_env, run_cli
from test_e2e_session import Session, set_up_project
from test_reflect_e2e import replay

# The CLI as a person runs it, except that the first call into the write path (edit_file)
# prints "paused" and waits for a line on stdin: the test acts in between, then lets it go.
PAUSED = (
    "import runpy, sys\n"
    "from conkeeper.domain import safewrite\n"
    "real = safewrite.edit_file\n"
    "state = {'paused': False}\n"
    "def edit_file(*args, **kwargs):\n"
    "    if not state['paused']:\n"
    "        state['paused'] = True\n"
    "        sys.stdout.write('paused\\n'); sys.stdout.flush()\n"
    "        sys.stdin.readline()\n"
    "    return real(*args, **kwargs)\n"
    "safewrite.edit_file = edit_file\n"
    "sys.argv = ['conkeeper', *sys.argv[1:]]\n"
    "runpy.run_module('conkeeper', run_name='__main__')\n"
)


class Paused:
    """A CLI process stopped at its first write; :meth:`finish` lets it write and returns
    ``(exit code, stdout, stderr)``."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PAUSED, *args],
            cwd=cwd,
            env=env or cli_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line != b"paused\n":  # it ended (or failed) before writing anything
            out, err = self.proc.communicate(timeout=120)
            raise AssertionError(f"never reached a write: {line!r} {out!r} {err!r}")

    def finish(self) -> tuple[int, str, str]:
        out, err = self.proc.communicate(b"go\n", timeout=120)
        return self.proc.returncode, out.decode(), err.decode()


def _memory(project: Path) -> Path:
    return project / ".claude" / "memory"


# --------------------------------------------------------------------------- consolidate

PNPM = b"- Use pnpm for installing packages in this repo\n"


def test_consolidate_never_removes_the_last_copy_of_a_duplicate_a_person_just_merged(
    project: Path,
) -> None:
    """``consolidate --apply`` planned to remove the second copy of a duplicated entry; the
    person removed that copy by hand before it took the lock, and the removal, looked up
    "nearest to where it was", took the copy it meant to keep: the entry was gone from
    memory. A removal whose kept copy is no longer there apart from it is refused now."""
    patterns = _memory(project) / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n" + PNPM)
    paused = Paused(project, "consolidate", "--apply")
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n")  # the person
    code, _, err = paused.finish()
    assert patterns.read_bytes().count(PNPM) == 1, (code, err)
    assert code == 1 and "changed since it was read" in err


def test_two_consolidate_runs_at_once_keep_one_copy(project: Path) -> None:
    """The same race between two ``consolidate --apply`` processes: both planned with both
    copies there; the second removed the copy the first had kept."""
    patterns = _memory(project) / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM + b"- Keep functions short\n" + PNPM)
    paused = Paused(project, "consolidate", "--apply")
    first = run_cli("consolidate", "--apply", cwd=project)
    assert first.returncode == 0, first.stderr
    paused.finish()
    assert patterns.read_bytes().count(PNPM) == 1


def test_consolidate_keeps_a_removal_whose_kept_copy_in_another_file_is_gone(
    project: Path,
) -> None:
    """A duplicate across files: the copy in the more authoritative file is kept. When the
    person deleted that copy while consolidate ran, the other copy is the only one left and
    is not removed."""
    memory = _memory(project)
    patterns = memory / "patterns.md"
    active = memory / "active-context.md"
    patterns.write_bytes(b"# Patterns\n\n" + PNPM)
    active.write_bytes(b"# Active Context\n\n" + PNPM)
    planned = run_cli("consolidate", cwd=project)
    keep_line = next(line for line in planned.stdout.splitlines() if "keep " in line)
    kept, other = (patterns, active) if "patterns.md" in keep_line else (active, patterns)
    paused = Paused(project, "consolidate", "--apply")
    kept.write_bytes(kept.read_bytes().replace(PNPM, b""))  # the person removes it there
    code, _, err = paused.finish()
    assert other.read_bytes().count(PNPM) == 1, (code, err)


# --------------------------------------------------------------------------- reflect --write


def _backlog(retro: str) -> list[str]:
    return [line for line in retro.splitlines() if line.startswith("- [ ] #")]


def test_two_reflect_writes_at_once_add_each_finding_once_under_its_own_number(
    tmp_path: Path,
) -> None:
    """Two ``reflect --write`` at once (two sessions ending, a person and the memory-reflect
    skill): each numbered its findings and checked them against the day's retro as read before
    the lock, so the second wrote every finding again under numbers already taken, and
    ``reflect approve N`` could reach only the first of each pair."""
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    paused = Paused(s.project, "reflect", "--write", env=s.env)
    other = run_cli("reflect", "--write", cwd=s.project, env=s.env)
    assert other.returncode == 0, other.stderr
    code, _, err = paused.finish()
    assert code == 0, err
    retro = next((s.project / ".claude" / "memory" / "sessions").glob("*-retro.md"))
    items = _backlog(retro.read_text(encoding="utf-8"))
    numbers = [line.split()[3] for line in items]
    assert len(items) >= 2 and len(set(numbers)) == len(numbers), items
    texts = [line.split(" ", 4)[4] for line in items]
    assert len(set(texts)) == len(texts), items


def test_a_backlog_item_the_person_adds_while_reflect_writes_keeps_its_number(
    tmp_path: Path,
) -> None:
    """The person adds their own item to the day's retro while ``reflect --write`` runs: the
    findings it adds take the next free numbers, never the person's."""
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    first = run_cli("reflect", "--write", cwd=s.project, env=s.env)
    assert first.returncode == 0, first.stderr
    retro = next((s.project / ".claude" / "memory" / "sessions").glob("*-retro.md"))
    text = retro.read_text(encoding="utf-8")
    # a later reflection finds something new: the queue gets another correction theme
    s.prompt("no, never commit directly to main, open a pull request instead")
    s.prompt("stop committing to main, always open a pull request")
    paused = Paused(s.project, "reflect", "--write", env=s.env)
    taken = len(_backlog(text)) + 1
    own = f"- [ ] #{taken} Ask before deleting a migration → patterns.md\n"
    text = retro.read_text(encoding="utf-8")
    retro.write_text(text.replace("\n## Evidence", own + "\n## Evidence", 1), encoding="utf-8")
    code, _, err = paused.finish()
    assert code == 0, err
    items = _backlog(retro.read_text(encoding="utf-8"))
    numbers = [line.split()[3] for line in items]
    assert own.rstrip("\n") in items and len(set(numbers)) == len(numbers), items


# --------------------------------------------------------------------------- locales

# A C locale with Python's UTF-8 coercion turned off: stdout's encoding is ASCII.
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
DASHED = "- Use the logger — never print() «in src/»\n"


def _ascii_env() -> dict[str, str]:
    env = cli_env(**ASCII_LOCALE)
    env.pop("PYTHONIOENCODING", None)
    return env


def test_session_start_injects_non_ascii_memory_under_an_ascii_locale(project: Path) -> None:
    """Under ``LC_ALL=C PYTHONUTF8=0`` SessionStart printed nothing at all: the JSON held an em
    dash, stdout could not encode it, and the write error was swallowed, so the agent started
    without its memory and nothing was logged. The hook writes UTF-8 whatever the locale."""
    (_memory(project) / "active-context.md").write_text(
        "# Active Context\n\n" + DASHED, encoding="utf-8"
    )
    payload = {
        "session_id": "s-ascii",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    import json

    result = run_cli("hook", "SessionStart", stdin=json.dumps(payload), env=_ascii_env())
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DASHED.strip() in context


def test_commands_print_non_ascii_memory_under_an_ascii_locale(project: Path) -> None:
    """``search`` (and ``demo``, whose observation log holds an em dash) crashed with
    UnicodeEncodeError under ``LC_ALL=C PYTHONUTF8=0``. Text now prints with escapes where the
    locale has no character for it, and ``--json`` stays valid JSON with the text intact."""
    import json

    (_memory(project) / "patterns.md").write_text("# Patterns\n\n" + DASHED, encoding="utf-8")
    env = _ascii_env()
    plain = run_cli("search", "logger", cwd=project, env=env)
    assert plain.returncode == 0, plain.stderr
    assert "Use the logger" in plain.stdout
    as_json = run_cli("search", "logger", "--json", cwd=project, env=env)
    assert as_json.returncode == 0, as_json.stderr
    assert DASHED.strip()[2:] in json.dumps(json.loads(as_json.stdout), ensure_ascii=False)


def test_demo_runs_under_an_ascii_locale(tmp_path: Path) -> None:
    """The README's first command: ``conkeeper demo`` in a fresh HOME under ``LC_ALL=C
    PYTHONUTF8=0`` stopped half way with a UnicodeDecodeError (files read in the locale's
    encoding), then a UnicodeEncodeError (printing the log's em dash)."""
    result = run_cli("demo", "--dir", str(tmp_path / "demo"), env=_ascii_env())
    assert result.returncode == 0, result.stderr
    assert "corrections queue" in result.stdout


# --------------------------------------------------------------------------- a full disk


def _limited(size: int) -> Callable[[], None]:
    """A ``preexec_fn`` that caps the size of any file the process writes at ``size`` bytes:
    a write past it fails part way, as on a full disk (Python ignores SIGXFSZ)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return cap


def test_an_entry_the_disk_has_no_room_for_leaves_no_half_of_it_behind(project: Path) -> None:
    """On a full disk ``remember`` said the disk was full, yet the person's patterns.md kept
    the first 3.5 KB of the entry, cut mid-word with no line break (a tmpfs of 256 KB showed
    it): unjournaled, so ``undo`` could not take it back, and the person's next ``echo >>``
    glued onto it. A write that fails part way now takes back what it wrote."""
    patterns = _memory(project) / "patterns.md"
    before = b"# Patterns\n\n- keep functions short\n"
    patterns.write_bytes(before)
    entry = "Prefer pathlib over os.path in every module " + "and every script " * 150
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "remember", "--source", "user", entry],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        timeout=120,
        preexec_fn=_limited(len(before) + 1000),
    )
    assert proc.returncode == 1, proc.stderr
    assert patterns.read_bytes() == before


def test_an_export_the_disk_has_no_room_for_leaves_no_partial_copy_behind(project: Path) -> None:
    """``export -o FILE`` on a full disk said so, and left ``.FILE.PID.conkeeper-tmp`` beside
    the target: a partial export (memory files, with private blocks when asked) nobody would
    know to remove. The partial file is removed; a target already there is left as it was."""
    (_memory(project) / "progress.md").write_text(
        "# Progress\n\n" + "".join(f"- step {n}: {'done ' * 40}\n" for n in range(6000)),
        encoding="utf-8",
    )
    saved = run_cli("remember", "--source", "user", "Use uv for environments", cwd=project)
    assert saved.returncode == 0, saved.stderr
    target = project / "backup.jsonl"
    target.write_bytes(b"an older export\n")
    limit = 1024 * 1024  # above the database's size, below the export's
    proc = subprocess.run(
        [sys.executable, "-m", "conkeeper", "export", "-o", str(target)],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        timeout=120,
        preexec_fn=_limited(limit),
    )
    assert proc.returncode == 1, proc.stderr
    assert sorted(p.name for p in project.iterdir() if "conkeeper-tmp" in p.name) == []
    assert target.read_bytes() == b"an older export\n"


# --------------------------------------------------------------------------- a locked database


def _hook_payload(project: Path, event: str, **fields: object) -> str:
    import json

    return json.dumps(
        {
            "session_id": "s-locked",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": event,
            **fields,
        }
    )


def test_history_a_locked_database_would_not_take_is_stored_once_it_is_free(
    project: Path,
) -> None:
    """Another program held the database's write lock past a hook's two-second wait: the
    prompt and the tool event the hooks were storing were logged as errors and lost for good
    (history exists only in the database). They are kept beside the row journal now, and the
    next hook that opens the database stores them, once."""
    import sqlite3

    start = run_cli("hook", "SessionStart", stdin=_hook_payload(project, "SessionStart"))
    assert start.returncode == 0, start.stderr
    db = Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # a database browser with a write open, a long import
    try:
        prompt = "remember the locked prompt ALPHA"
        said = run_cli(
            "hook",
            "UserPromptSubmit",
            stdin=_hook_payload(project, "UserPromptSubmit", prompt=prompt),
        )
        used = run_cli(
            "hook",
            "PostToolUse",
            stdin=_hook_payload(
                project,
                "PostToolUse",
                tool_name="Bash",
                tool_input={"command": "make locked-BETA"},
                tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
                tool_use_id="toolu_locked",
            ),
        )
        assert (said.returncode, used.returncode) == (0, 0)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    for _ in range(2):  # the next hooks store what waited, and only once
        later = run_cli(
            "hook", "SessionStart", stdin=_hook_payload(project, "SessionStart", source="resume")
        )
        assert later.returncode == 0, later.stderr
    reader = sqlite3.connect(db)
    try:
        prompts = reader.execute("SELECT text FROM prompts").fetchall()
        events = reader.execute("SELECT input_summary FROM tool_events").fetchall()
    finally:
        reader.close()
    assert prompts == [(prompt,)]
    assert len(events) == 1 and "locked-BETA" in events[0][0]
    journal = (db.parent / "backups" / "journal.jsonl").read_text(encoding="utf-8")
    assert "ALPHA" in journal and "locked-BETA" in journal  # a later restore has them too


def test_a_prompt_sent_while_the_database_is_damaged_survives_the_restore(project: Path) -> None:
    """A garbage header made every hook fail until ``doctor`` restored the database; the
    prompts sent meanwhile were lost (the restore replays only what was journaled, and they
    never were). Kept for later, they are stored by the first hook after the restore."""
    import sqlite3

    prompt = "the second prompt DELTA, sent while the database was damaged"
    for text in ("the first prompt GAMMA", None, "the third prompt EPSILON"):
        if text is None:
            db = Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db"
            with open(db, "r+b") as handle:
                handle.write(b"garbage garbage garbage!")
            said = run_cli(
                "hook",
                "UserPromptSubmit",
                stdin=_hook_payload(project, "UserPromptSubmit", prompt=prompt),
            )
            assert said.returncode == 0
            run_cli("doctor", cwd=project)  # restores the database
            continue
        said = run_cli(
            "hook",
            "UserPromptSubmit",
            stdin=_hook_payload(project, "UserPromptSubmit", prompt=text),
        )
        assert said.returncode == 0, said.stderr
    reader = sqlite3.connect(db)
    try:
        texts = [
            row[0] for row in reader.execute("SELECT text FROM prompts ORDER BY prompt_number")
        ]
    finally:
        reader.close()
    assert texts == ["the first prompt GAMMA", prompt, "the third prompt EPSILON"]


def test_a_session_forgotten_while_its_prompt_waited_stays_forgotten(project: Path) -> None:
    """A prompt kept for later (the database was locked) must not bring a session back that
    the person forgot meanwhile: ``forget`` is a privacy promise."""
    import sqlite3

    start = run_cli("hook", "SessionStart", stdin=_hook_payload(project, "SessionStart"))
    assert start.returncode == 0, start.stderr
    db = Path(cli_env()["CONKEEPER_HOME"]) / "conkeeper.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        payload = _hook_payload(project, "UserPromptSubmit", prompt="my card number ZETA")
        assert run_cli("hook", "UserPromptSubmit", stdin=payload).returncode == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    forgot = run_cli("forget", "session", "s-locked", "--yes", cwd=project)
    assert forgot.returncode == 0, forgot.stderr
    other = {**json.loads(_hook_payload(project, "SessionStart")), "session_id": "s-next"}
    assert run_cli("hook", "SessionStart", stdin=json.dumps(other)).returncode == 0
    reader = sqlite3.connect(db)
    try:
        assert reader.execute("SELECT count(*) FROM prompts").fetchone() == (0,)
        hosts = [row[0] for row in reader.execute("SELECT host_session_id FROM sessions")]
    finally:
        reader.close()
    assert "s-locked" not in hosts
    pending = db.parent / "backups" / "pending.jsonl"
    assert "ZETA" not in pending.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- reflect approve


def test_a_rule_the_person_rewords_while_it_is_approved_keeps_their_words(tmp_path: Path) -> None:
    """``reflect approve N`` read the item, saved it to memory, then moved the backlog line
    ``#N`` to Approved with the text it had read: a person rewording that line in their editor
    meanwhile lost their words. The retro edit is refused now when the line changed (the
    person's line stays pending, the message says what was saved)."""
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    wrote = run_cli("reflect", "--write", "--json", cwd=s.project, env=s.env)
    assert wrote.returncode == 0, wrote.stderr
    retro = Path(json.loads(wrote.stdout)["retro"])
    first = next(line for line in retro.read_text(encoding="utf-8").splitlines() if "#1 " in line)
    paused = Paused(s.project, "reflect", "approve", "1", env=s.env)  # stops at its first write
    reworded = "- [ ] #1 Log through the logging module, never print(), in src/ only → patterns.md"
    retro.write_text(retro.read_text(encoding="utf-8").replace(first, reworded), encoding="utf-8")
    code, _, err = paused.finish()
    assert reworded in retro.read_text(encoding="utf-8").splitlines(), (code, err)
    assert code == 1 and "changed" in err


# --------------------------------------------------------------------------- import --overwrite


def test_import_overwrite_never_drops_a_line_appended_after_the_file_was_compared(
    project: Path,
) -> None:
    """``import jsonl --overwrite`` compared the file with the export, then replaced whatever
    was there under the lock: a line a hook or the person appended in between vanished from
    the file (the person had chosen to replace the version they had, not one they never saw).
    The replacement is refused now when the file changed since it was compared."""
    patterns = _memory(project) / "patterns.md"
    patterns.write_bytes(b"# Patterns\n\n- exported rule\n")
    saved = run_cli("remember", "--source", "user", "Use uv for environments", cwd=project)
    assert saved.returncode == 0, saved.stderr
    backup = project.parent / "backup.jsonl"
    exported = run_cli("export", "-o", str(backup), cwd=project)
    assert exported.returncode == 0, exported.stderr
    for other in _memory(project).iterdir():
        if other.is_file() and other != patterns:
            other.unlink()  # only patterns.md differs from the export
    patterns.write_bytes(b"# Patterns\n\n- the person's newer rule\n")
    paused = Paused(project, "import", "jsonl", str(backup), "--overwrite")
    with open(patterns, "ab") as handle:
        handle.write(b"- appended while the import ran\n")
    code, out, err = paused.finish()
    assert b"- appended while the import ran\n" in patterns.read_bytes(), (code, out, err)
    assert "changed while it was being imported" in out + err


# --------------------------------------------------------------------------- an editor's save

# A hook run as the launcher runs it (``run_hook``), stopped once it holds the queue's lock,
# right before it appends: stdin is the gate, the payload comes from a file.
PAUSED_HOOK = (
    "import sys\n"
    "from conkeeper.domain import safewrite\n"
    "real = safewrite._break_before\n"
    "def gate(*args, **kwargs):\n"
    "    sys.stderr.write('paused\\n'); sys.stderr.flush()\n"
    "    sys.stdin.readline()\n"
    "    return real(*args, **kwargs)\n"
    "safewrite._break_before = gate\n"
    "from conkeeper.hooks.runner import run_hook\n"
    "with open(sys.argv[2], 'rb') as handle:\n"
    "    sys.exit(run_hook(sys.argv[1], stdin_bytes=handle.read()))\n"
)


def test_a_queue_line_survives_an_editor_saving_the_queue_as_the_hook_appends(
    project: Path,
) -> None:
    """The person saved corrections-queue.md from their editor (a new file renamed over the
    old one) in the moment a UserPromptSubmit hook held the queue's lock: the hook appended its
    line to the old file, which no path named any more, and the correction was gone. An
    append that finds its file replaced adds the line to the file the path names now."""
    queue = _memory(project) / "corrections-queue.md"
    queue.write_bytes(b"# Corrections Queue\n\n")
    prompt = "no, don't use print statements for debugging, use the logging module instead"
    payload = project.parent / "payload.json"
    payload.write_text(_hook_payload(project, "UserPromptSubmit", prompt=prompt), encoding="utf-8")
    hook = subprocess.Popen(
        [sys.executable, "-c", PAUSED_HOOK, "UserPromptSubmit", str(payload)],
        cwd=project,
        env=cli_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert hook.stderr is not None
    assert hook.stderr.readline() == b"paused\n"
    saved = queue.with_name(".corrections-queue.md.swp")  # the editor's save
    saved.write_bytes(queue.read_bytes() + b"- my own note about the queue\n")
    saved.replace(queue)
    _, err = hook.communicate(b"go\n", timeout=120)
    assert hook.returncode == 0, err
    text = queue.read_text(encoding="utf-8")
    assert "- my own note about the queue\n" in text
    assert text.count("use the logging module") == 1, text


# --------------------------------------------------------------------------- undo of a command


def test_undo_takes_back_a_whole_reflect_approve(tmp_path: Path) -> None:
    """``reflect approve 1`` writes the rule into patterns.md, takes its corrections out of the
    queue and moves the item in the retro; ``undo`` took back only the retro's move, leaving
    the rule in memory and the corrections gone while the retro said #1 was pending again (and
    approving it again was refused as a duplicate). One approve is one undo step now."""
    s = Session(tmp_path)
    set_up_project(s)
    replay(s)
    memory = s.project / ".claude" / "memory"
    wrote = run_cli("reflect", "--write", cwd=s.project, env=s.env)
    assert wrote.returncode == 0, wrote.stderr
    files = [memory / "patterns.md", memory / "corrections-queue.md"]
    files += list((memory / "sessions").glob("*-retro.md"))
    before = {path: path.read_bytes() for path in files}
    approved = run_cli("reflect", "approve", "1", cwd=s.project, env=s.env)
    assert approved.returncode == 0, approved.stderr
    assert {path: path.read_bytes() for path in files} != before
    undone = run_cli("undo", cwd=s.project, env=s.env)
    assert undone.returncode == 0, undone.stderr
    assert {path: path.read_bytes() for path in files} == before


def test_undo_takes_back_a_whole_decision(project: Path) -> None:
    """``decisions new`` creates the ADR and adds its index row: ``undo`` took back the row
    alone and left the ADR file, unlisted."""
    decisions = _memory(project) / "decisions"
    made = run_cli("decisions", "new", "Use PostgreSQL", "--decision", "We use it", cwd=project)
    assert made.returncode == 0, made.stderr
    assert list(decisions.glob("ADR-*.md"))
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert list(decisions.glob("ADR-*.md")) == []


def test_undo_takes_back_a_whole_consolidate(project: Path) -> None:
    """A ``consolidate --apply`` that changed two files was two undo steps."""
    memory = _memory(project)
    (memory / "patterns.md").write_bytes(b"# Patterns\n\n" + PNPM + PNPM)
    (memory / "active-context.md").write_bytes(b"# Active Context\n\n" + PNPM)
    before = {p: p.read_bytes() for p in (memory / "patterns.md", memory / "active-context.md")}
    applied = run_cli("consolidate", "--apply", cwd=project)
    assert applied.returncode == 0 and "2 file(s) changed" in applied.stdout, applied.stdout
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert {p: p.read_bytes() for p in before} == before


def test_undo_takes_back_a_whole_import(project: Path) -> None:
    """``import jsonl`` restoring two memory files was two undo steps."""
    memory = _memory(project)
    (memory / "patterns.md").write_bytes(b"# Patterns\n\n- keep functions short\n")
    (memory / "glossary.md").write_bytes(b"# Glossary\n\n- ADR: a decision record\n")
    saved = run_cli("remember", "--source", "user", "Use uv for environments", cwd=project)
    assert saved.returncode == 0, saved.stderr
    backup = project.parent / "backup.jsonl"
    assert run_cli("export", "-o", str(backup), cwd=project).returncode == 0
    for name in ("patterns.md", "glossary.md"):
        (memory / name).unlink()
    restored = run_cli("import", "jsonl", str(backup), cwd=project)
    assert restored.returncode == 0, restored.stderr
    assert (memory / "patterns.md").exists() and (memory / "glossary.md").exists()
    undone = run_cli("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert not (memory / "patterns.md").exists() and not (memory / "glossary.md").exists()
