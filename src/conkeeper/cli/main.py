"""The ``conkeeper`` command: a lazy registry of subcommands.

Only the chosen subcommand's module is imported, so ``conkeeper hook ...`` pays for nothing
else. Each command module exposes ``add_arguments(parser)`` and ``run(args) -> int`` and may
raise :class:`~conkeeper.cli.output.CliError`; anything else unexpected becomes one line on
stderr (the traceback goes to the log file), never a traceback on the terminal.
"""

from __future__ import annotations

import sys

from conkeeper import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse is imported only when a command's arguments need it
    import argparse
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn

# name -> (module under conkeeper.cli, one-line description). Order is the order of --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": (
        "cmd_init",
        "Create the memory layout (project or --global); never overwrites",
    ),
    "search": ("cmd_search", "Search memory, sessions and observations (agent-friendly output)"),
    "index": ("cmd_index", "Build, refresh or inspect the search index"),
    "privacy": ("cmd_privacy", "Show what privacy hides: strip, redact, check"),
    "config": ("cmd_config", "Show, get or set configuration keys"),
    "tag": ("cmd_tag", "Classify entries and add or remove category tags"),
    "corrections": ("cmd_corrections", "Detect corrections/friction in text; list the queue"),
    "reflect": ("cmd_reflect", "Session retrospective: recommendations, retro file, approve"),
    "insights": ("cmd_insights", "Trends across sessions: corrections, friction, failures (chart)"),
    "remember": ("cmd_remember", "Save one entry to memory, or hold it for review (as MCP)"),
    "review": ("cmd_review", "List memory entries held for review; approve or drop them"),
    "decisions": ("cmd_decisions", "Write a new ADR or regenerate decisions/INDEX.md"),
    "sync": ("cmd_sync", "Record a memory sync (resets the context monitor and save counter)"),
    "sessions": ("cmd_retrieval", "Level 1: list recent sessions with titles"),
    "summary": ("cmd_retrieval", "Level 2: show a session's summary"),
    "observations": ("cmd_retrieval", "Level 3: list observation titles with filters"),
    "facts": ("cmd_retrieval", "Level 4: search atomic facts of observations"),
    "show": ("cmd_retrieval", "Level 5: show observations in full by id"),
    "timeline": ("cmd_retrieval", "Show observations around one observation"),
    "extract": ("cmd_extract", "Turn captured tool events into observations and summaries"),
    "import": ("cmd_import", "Import transcripts or a JSONL backup"),
    "export": ("cmd_export", "Export sessions, observations and summaries as JSONL"),
    "history": ("cmd_history", "List ConKeeper's journaled writes to memory files and configs"),
    "undo": ("cmd_history", "Restore the bytes from before one write (default: the newest)"),
    "forget": ("cmd_forget", "Remove an observation, a session or a whole project"),
    "backup": ("cmd_backup", "Back up the session history now (kept beside the database)"),
    "hook": ("cmd_hook", "Run a host hook event (reads the payload on stdin)"),
    "handoff": ("cmd_handoff", "Write or show the handoff checkpoint for the next session"),
    "install": ("cmd_install", "Install or remove ConKeeper in Claude Code or another agent"),
    "doctor": ("cmd_doctor", "Check Python, SQLite FTS5, memory roots, hooks and permissions"),
    "viewer": ("cmd_viewer", "Open a local web page for memory, sessions, retros and the queue"),
    "demo": ("cmd_demo", "Run ConKeeper end to end on a generated, realistic project"),
    "stale": ("cmd_stale", "List memory entries whose cited files, symbols or commands moved on"),
    "consolidate": ("cmd_consolidate", "Propose merging duplicate or contradictory memory entries"),
    "mcp": ("cmd_mcp", "Serve memory to MCP clients over stdio, or --http on 127.0.0.1"),
    "server": ("cmd_server", "Run the team memory server (PostgreSQL): init, token, serve"),
    "team": ("cmd_team", "Join a team server, push this machine's shared memory, status"),
}


def _formatter() -> type[argparse.HelpFormatter]:
    """argparse's formatter without its ``shutil`` import: argparse builds one for every
    ``add_argument``, and a read command should not load ``shutil`` (and ``bz2``/``lzma``)."""
    import argparse

    class _Formatter(argparse.HelpFormatter):
        def __init__(
            self, prog: str, indent_increment: int = 2, max_help_position: int = 24
        ) -> None:
            super().__init__(prog, indent_increment, max_help_position, width=_columns() - 2)

    return _Formatter


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser whose usage errors (which quote the arguments typed) pass the privacy
    module whole, like every other message (``domain.messages``)."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            from conkeeper.domain.messages import clean_message

            super().error(clean_message(message))

    return _Parser


_COLUMNS: list[int] = []


def _columns() -> int:
    """The terminal width as ``shutil.get_terminal_size`` finds it: $COLUMNS, the tty, or 80
    (looked up once: argparse makes a formatter for every option)."""
    if not _COLUMNS:
        _COLUMNS.append(_find_columns())
    return _COLUMNS[0]


def _find_columns() -> int:
    import os

    try:
        if int(os.environ.get("COLUMNS", "0")) > 0:
            return int(os.environ["COLUMNS"])
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _available() -> dict[str, tuple[str, str]]:
    """Commands whose modules exist in this installation."""
    import importlib.util

    found = {}
    for name, (module, help_text) in COMMANDS.items():
        spec = importlib.util.find_spec(f"conkeeper.cli.{module}")
        if spec is not None:
            found[name] = (module, help_text)
    return found


def _top_parser(commands: dict[str, tuple[str, str]]) -> argparse.ArgumentParser:

    parser = _parser_class()(
        prog="conkeeper",
        description="ConKeeper: memory for coding agents that you own and can read.",
    )
    parser.add_argument("--version", action="version", version=f"conkeeper {__version__}")
    parser.add_argument(
        "--no-color", action="store_true", help="no colour on a terminal (as does NO_COLOR=1)"
    )
    parser.add_argument(
        "--no-pager", action="store_true", help="never page long output (default pager: less)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in commands.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _command_parser(name: str, help_text: str, module: object) -> argparse.ArgumentParser:

    parser = _parser_class()(
        prog=f"conkeeper {name}", description=help_text, formatter_class=_formatter()
    )
    add = getattr(module, "add_arguments", None)
    if add is not None:
        add(parser, name) if _takes_name(add) else add(parser)
    return parser


def _takes_name(func: object) -> bool:
    code = getattr(func, "__code__", None)
    return code is not None and code.co_argcount >= 2


def _locale_proof(*streams: object) -> None:
    """Make each text stream whose encoding is not UTF-8 print what it cannot encode as an
    escape (``\\u2014``) instead of failing: under ``LC_ALL=C PYTHONUTF8=0`` a memory file's
    em dash made ``search`` and ``demo`` crash with UnicodeEncodeError. (The hook writes UTF-8
    bytes itself: ``hooks.runner``.)"""
    import codecs

    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        try:
            utf8 = codecs.lookup(getattr(stream, "encoding", None) or "utf-8").name == "utf-8"
        except LookupError:
            utf8 = False
        if reconfigure is not None and not utf8:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                continue


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    _locale_proof(sys.stdout, sys.stderr)
    args = list(sys.argv[1:] if argv is None else argv)
    flags: set[str] = set()
    if any(a in ("--no-color", "--no-pager") for a in args):
        from conkeeper.cli.terminal import take_flags

        args, flags = take_flags(args)
    if args and args[0] in COMMANDS and not args[0].startswith("-"):
        name = args[0]
        module_name, help_text = COMMANDS[name]
        try:
            module = __import__(f"conkeeper.cli.{module_name}", fromlist=["run"])
        except ModuleNotFoundError:
            sys.stderr.write(f"conkeeper: '{name}' is not available in this version\n")
            return 2
        parsed = _fast_parse(name, help_text, module, args[1:])
        if parsed is None:
            parsed = _command_parser(name, help_text, module).parse_args(args[1:])
        parsed.command = name
        return _run_on_terminal(module, parsed, args[1:], flags)
    parser = _top_parser(_available())
    if not args:
        parser.print_help()
        return 0
    parser.parse_args(args)  # handles --help/--version and reports unknown commands
    return 0


def _fast_parse(
    name: str, help_text: str, module: object, argv: list[str]
) -> argparse.Namespace | None:
    """The arguments of a command that opts in (``FAST_ARGS = True``, e.g. ``search``) parsed
    without importing argparse, or ``None`` to let argparse do it (help, errors, anything
    unusual): see :mod:`conkeeper.cli.fastargs`."""
    if not getattr(module, "FAST_ARGS", False):
        return None
    from conkeeper.cli.fastargs import parse

    return parse(module, argv, lambda: _command_parser(name, help_text, module))


def _run_on_terminal(
    module: ModuleType, parsed: argparse.Namespace, argv: list[str], flags: set[str]
) -> int:
    """Run the command; on a terminal, a report command gets colour and a pager
    (:mod:`conkeeper.cli.terminal`); anything else, a pipe or ``--json`` runs plain."""
    if parsed.command == "hook" or not sys.stdout.isatty():
        return _run(module, parsed)
    from conkeeper.cli import terminal

    state = terminal.setup(parsed.command, argv, flags)
    return terminal.run_paged(lambda: _run(module, parsed), state)


def _run(module: ModuleType, parsed: argparse.Namespace) -> int:
    """Run a command; every error it raises reaches the person as one line, cleaned whole by
    the privacy module (``domain.messages``), a full disk named as such."""
    from conkeeper.cli.output import CliError, error_line

    if parsed.command != "hook" and _folder_gone():
        sys.stderr.write(
            "conkeeper: the current folder no longer exists (deleted or moved away); "
            "cd into your project and run the command again\n"
        )
        return 1
    try:
        code = int(module.run(parsed) or 0)
        sys.stdout.flush()  # output redirected to a full disk fails here, said in one line
        return code
    except CliError as exc:
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("conkeeper: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # last line of defence for a person at a terminal
        if isinstance(exc, OSError):
            _drop_pending_output()
        sys.stderr.write(error_line(exc, command=parsed.command) + "\n")
        return 1


def _folder_gone() -> bool:
    """Whether the working folder was deleted (or moved away) under the shell: every command
    resolves its project from it, and failed on it with a bare ``FileNotFoundError``."""
    import os

    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _drop_pending_output() -> None:
    """Point stdout at the null device, so output that could not be written (a full disk)
    is not retried at exit with a second, raw error."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
