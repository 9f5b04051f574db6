"""Secrets a second outside probe found leaking, each through a real entry point.

The probe planted realistic credentials where a user, a tool or a host would put them: a
private block closed in a later prompt, a session id, a URL's query string, a cookie on a
command line. Each test sends them through the real front door (a hook subprocess with a
real-shaped payload, or the CLI), then greps everything ConKeeper printed and every byte it
wrote under the data home and the memory folder.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tests.test_privacy_probe import assert_hidden, hook, written

from conkeeper.domain.privacy import clean_captured

WORDS = st.text(alphabet="abcdefghij klmnop\n", max_size=40)


def test_a_private_block_closed_in_a_later_prompt_hides_what_precedes_the_close(
    project: Path, isolated_home: Path
) -> None:
    password = "ZorblaxQuintessa77"
    first = hook(project, "UserPromptSubmit", prompt="context\n<private>\nvpn pass is hunter")
    second = hook(
        project,
        "UserPromptSubmit",
        prompt=f"and the db pass {password}\n</private>\nplease fix the flaky build",
    )
    inline = hook(project, "UserPromptSubmit", prompt=f"also {password}X</private> thanks")
    blob = written(project, isolated_home)
    assert_hidden(password, first, second, inline, blob)
    assert b"please fix the flaky build" in blob  # what follows the close is kept


@given(
    before=WORDS,
    hidden=st.from_regex(r"[A-Z][a-z0-9]{11}", fullmatch=True),
    after=WORDS,
    sep=st.sampled_from(["\n", " ", "\r\n", ""]),
    closed=st.booleans(),
)
def test_a_stray_close_hides_back_to_the_previous_span_and_keeps_what_follows(
    before: str, hidden: str, after: str, sep: str, closed: bool
) -> None:
    """Whatever precedes a closing tag with no opening one is hidden (back to the end of a
    span closed before it, whose earlier text stays); what follows it stays."""
    head = f"{before} <private>x</private> " if closed else ""
    cleaned = clean_captured(f"{head}{hidden}{sep}</private>{sep}tail {after}") or ""
    assert hidden not in cleaned
    assert "tail" in cleaned
    if closed and before.strip():
        assert before.split()[0] in cleaned
