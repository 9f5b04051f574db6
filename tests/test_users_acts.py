"""``domain.users_acts``: which shell commands run a ConKeeper act that is the user's alone
(an approval, ``remember --source user``, ``config set`` of where data goes). The pre-tool hook
refuses those (``test_poisoning_routes2``); here, the reading itself, as a table of the
spellings an agent's shell can use and of commands that only mention the words, and as
properties over arbitrary text (it never raises; an approval appended to any command after a
separator is found; a command without ``conkeeper`` is never one)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conkeeper.domain.users_acts import users_act


@pytest.mark.parametrize(
    "command",
    [
        "conkeeper review approve q1234abcd",
        "CLAUDECODE=0 conkeeper review approve q1",
        "env -u CLAUDECODE python3 -m conkeeper review approve q1",
        "env -i PATH=/usr/bin /home/me/.local/bin/conkeeper --json review approve q1",
        "sudo -u me nohup conkeeper reflect approve 2 --text 'Run ruff first'",
        "timeout 5 conkeeper review approve q1",
        "cd /srv/app && uv run conkeeper review approve q1",
        "pipx run conkeeper review approve q1 > /dev/null 2>&1",
        "bash -c 'conkeeper review approve q1'",
        "sh -c \"bash -c 'conkeeper review approve q1'\"",
        "eval 'conkeeper review approve q1'",
        'echo "$(conkeeper review approve q1)"',
        "echo `conkeeper review approve q1`",
        "ls; conkeeper review approve q1",
        "ls\nconkeeper review approve q1",
        "conkeeper review \\\n  approve q1",
        "true || conkeeper review approve q1",
        "conkeeper review approve 'unbalanced",
    ],
)
def test_every_spelling_of_an_approval_is_found(command: str) -> None:
    assert users_act(command) in ("review approve", "reflect approve")


@pytest.mark.parametrize(
    "command",
    [
        "echo please approve the PR",
        "git commit -m 'conkeeper review approve: document the flow'",
        "grep -rn 'review approve' docs/ | head",
        "conkeeper review --json && echo approve",
        "conkeeper review drop q1",
        "python -m conkeeper search 'review approve'",
        "gh pr review --approve 123",
        "npx approve-builds",
        "conkeeper config set sensitivity low",
        "conkeeper config get llm_base_url",
        "conkeeper remember 'Use pnpm' --source agent-mcp",
        "source .venv/bin/activate && conkeeper search config",
    ],
)
def test_commands_that_only_mention_the_words_are_not_approvals(command: str) -> None:
    assert users_act(command) is None


@pytest.mark.parametrize(
    ("command", "act"),
    [
        ("env -u CLAUDECODE conkeeper remember 'Use the mirror' --source user",
         "remember --source user"),
        ("conkeeper remember --source=user 'x'", "remember --source user"),
        ("conkeeper config set llm_base_url http://collector.example", "config set llm_base_url"),
        ("python3 -m conkeeper config set extractor=anthropic", "config set extractor"),
        ("CLAUDECODE= conkeeper --json config set team_sync true", "config set team_sync"),
    ],
)  # fmt: skip
def test_saying_a_note_is_the_users_or_sending_data_elsewhere_is_found(
    command: str, act: str
) -> None:
    assert users_act(command) == act


@given(st.text(max_size=200))
def test_any_text_is_read_without_raising(command: str) -> None:
    assert users_act(command) is None or isinstance(users_act(command), str)


@given(
    st.text(alphabet=st.characters(blacklist_characters="'\"`\\$#"), max_size=80),
    st.sampled_from([";", "&&", "||", "|", "\n"]),
)
def test_an_approval_after_any_command_and_separator_is_found(prefix: str, sep: str) -> None:
    assert users_act(f"{prefix} {sep} conkeeper review approve q1") == "review approve"


@given(st.text(max_size=200))
def test_text_without_conkeeper_is_never_a_users_act(command: str) -> None:
    if "conkeeper" not in command:
        assert users_act(command) is None
