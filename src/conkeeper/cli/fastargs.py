"""A command's arguments parsed without argparse, for the read path's common cases.

Why it exists: ``conkeeper search QUERY`` is run by agents many times a session, and importing
argparse (with ``re``, ``gettext``) and building a parser costs more than the search itself on a
small memory. A command opts in with ``FAST_ARGS = True``; its own ``add_arguments`` is run
against a recorder here, so the options are declared once and this parser cannot drift from
argparse's. Only the plainest shapes are handled — ``store_true`` and ``append`` flags, options
with one value (``--limit 5`` or ``--limit=5``, ``type=int``, ``choices``) and one ``nargs="*"``
positional given in one run — and anything else (``--help``, an unknown or abbreviated option,
``--``, a value that starts with ``-``, an invalid number or choice, positional words on both
sides of an option, an empty positional) returns ``None`` so argparse parses it, with its exact
messages and exit codes.
"""

from __future__ import annotations

from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

_SIMPLE_ACTIONS = frozenset({"store_true", "append", "store"})


class _Option:
    """One option as ``add_argument`` declared it."""

    __slots__ = ("action", "choices", "convert", "default", "dest")

    def __init__(self, dest: str, action: str, default: object, convert: object, choices: object):
        self.dest, self.action, self.default = dest, action, default
        self.convert, self.choices = convert, choices


class _Recorder:
    """Stands in for an ``ArgumentParser`` while a command declares its arguments."""

    def __init__(self, full_parser: Callable[[], argparse.ArgumentParser]) -> None:
        self.options: dict[str, _Option] = {}
        self.positional: str | None = None
        self.defaults: dict[str, object] = {}
        self.supported = True
        self._full_parser = full_parser

    def add_argument(self, *names: str, **kw: object) -> None:
        """Record one argument; anything this module cannot parse marks the command as such."""
        action = str(kw.get("action", "store"))
        nargs = kw.get("nargs")
        if action not in _SIMPLE_ACTIONS or kw.get("type") not in (None, int, str):
            self.supported = False
            return
        if not names[0].startswith("-"):
            if nargs != "*" or self.positional is not None or action != "store":
                self.supported = False
            self.positional = str(kw.get("dest", names[0]))
            return
        if nargs is not None or not all(n.startswith("--") for n in names):
            self.supported = False  # short options and multi-value options: argparse
            return
        dest = str(kw.get("dest") or names[0][2:].replace("-", "_"))
        default = kw.get("default", False if action == "store_true" else None)
        option = _Option(dest, action, default, kw.get("type"), kw.get("choices"))
        for name in names:
            self.options[name] = option

    def set_defaults(self, **kw: object) -> None:
        """Record defaults that are not options (e.g. a usage callback)."""
        self.defaults.update(kw)

    def format_usage(self) -> str:
        """The real parser's usage line (built only when asked for)."""
        return self._full_parser().format_usage()


def parse(
    module: object, argv: list[str], full_parser: Callable[[], argparse.ArgumentParser]
) -> argparse.Namespace | None:
    """``module``'s arguments in ``argv`` as argparse would parse them, or ``None`` when the
    case is not a plain one (then the caller lets argparse parse ``argv``)."""
    recorder = _Recorder(full_parser)
    module.add_arguments(recorder)  # type: ignore[attr-defined]
    if not recorder.supported or recorder.positional is None:
        return None
    values = _parse(recorder, argv)
    if values is None:
        return None
    return SimpleNamespace(**values)  # type: ignore[return-value]


def _parse(recorder: _Recorder, argv: list[str]) -> dict[str, object] | None:
    values: dict[str, object] = {}
    for declared in recorder.options.values():
        default = declared.default
        values[declared.dest] = list(default) if isinstance(default, list) else default
    words: list[str] = []
    runs = 0  # runs of positional words; argparse takes a "*" positional's words from one
    i, previous_word = 0, False
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-") and arg:
            runs += 0 if previous_word else 1
            words.append(arg)
            previous_word = True
            i += 1
            continue
        previous_word = False
        name, eq, inline = arg.partition("=")
        option = recorder.options.get(name)
        if option is None:
            return None  # --help, -h, --, an abbreviation, a negative number, an empty word
        if option.action == "store_true":
            if eq:
                return None
            values[option.dest] = True
            i += 1
            continue
        if eq:
            raw, i = inline, i + 1
        elif i + 1 < len(argv):
            raw, i = argv[i + 1], i + 2
        else:
            return None
        value = _value(option, raw)
        if value is None:
            return None
        if option.action == "append":
            values[option.dest].append(value)  # type: ignore[attr-defined]
        else:
            values[option.dest] = value
    if runs != 1:
        return None  # no query (usage message) or words on both sides of an option
    values[recorder.positional] = words  # type: ignore[index]
    values.update(recorder.defaults)
    return values


def _value(option: _Option, raw: str) -> object | None:
    """``raw`` converted and checked as argparse would, or ``None`` when argparse should say
    what is wrong with it (or when it could be read as an option)."""
    if not raw or raw.startswith("-"):
        return None
    value: object = raw
    if option.convert is int:
        if not raw.isascii() or not raw.isdigit():
            return None
        value = int(raw)
    if option.choices is not None and value not in option.choices:  # type: ignore[operator]
        return None
    return value
