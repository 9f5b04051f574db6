"""Team memory's pure parts: project identity from a git origin, the privacy gate, the wire.

No PostgreSQL needed: these run everywhere. The identity must make every usual spelling of one
repository's URL one project (property-tested), the gate must refuse what the privacy module
would still change, and the wire must refuse malformed records field by field.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conkeeper.services.team import gate, wire
from conkeeper.services.team.identity import normalize_origin, project_key

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:acme/shop.git",
        "git@github.com:acme/shop",
        "ssh://git@github.com/acme/shop.git",
        "ssh://git@github.com:22/acme/shop.git",
        "https://github.com/acme/shop",
        "https://github.com/acme/shop.git",
        "https://user:secret@github.com/acme/shop.git/",
        "HTTPS://GitHub.com/acme/shop",
        "https://github.com/Acme/Shop.GIT/",
        "git@GitHub.com:ACME/shop.git",
        "git://github.com/acme/shop.git",
        "ssh://git@github.com:acme/shop.git",
        "git+ssh://git@github.com:acme/shop.git",
        "ssh://git@github.com:/acme/shop.git",
    ],
)
def test_every_spelling_of_one_repository_is_one_project(url: str) -> None:
    assert normalize_origin(url) == "github.com/acme/shop"


def test_credentials_in_an_origin_never_reach_the_key() -> None:
    key = normalize_origin("https://ann:" + SECRET + "@gitlab.example.com/team/app.git")
    assert key == "gitlab.example.com/team/app"


@pytest.mark.parametrize("url", ["", "   ", "not a url", "/local/path/repo", "https://host/"])
def test_what_is_not_a_remote_has_no_key(url: str) -> None:
    assert normalize_origin(url) is None


NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)


@given(host=NAME, owner=NAME, repo=NAME, port=st.integers(1, 65535))
def test_ssh_and_https_forms_agree(host: str, owner: str, repo: str, port: int) -> None:
    host = host + ".example"
    forms = [
        f"git@{host}:{owner}/{repo}.git",
        f"ssh://git@{host}:{port}/{owner}/{repo}.git",
        f"https://{host}/{owner}/{repo}",
        f"https://{host.upper()}/{owner}/{repo}.git/",
    ]
    assert {normalize_origin(form) for form in forms} == {f"{host}/{owner}/{repo}"}


def test_project_key_prefers_the_override_then_the_origin(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert project_key(root) is None  # not a repository
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert project_key(root) is None  # no origin
    subprocess.run(
        ["git", "-C", str(root), "remote", "add", "origin", "git@github.com:acme/shop.git"],
        check=True,
    )
    assert project_key(root) == "github.com/acme/shop"
    assert project_key(root, "acme-shop") == "acme-shop"


def _repo_with_origin(root: Path, url: str) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", url], check=True)
    return root


def test_an_ssh_host_alias_is_the_host_it_stands_for(tmp_path: Path) -> None:
    """A teammate who clones through an alias of their ssh config (``git@gh-work:...`` with
    ``Host gh-work`` / ``HostName github.com``, common with a second key for work) named a
    project of its own, and their observations never met the team's. ssh itself now says what
    the alias connects to, read with the ssh command git uses for the repository."""
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host gh-work\n  HostName GitHub.com\n  User git\n  IdentityFile ~/.ssh/id_work\n",
        encoding="utf-8",
    )
    root = _repo_with_origin(tmp_path / "repo", "gh-work:Acme/Shop.git")
    assert project_key(root) == "gh-work/acme/shop"  # plain ssh knows no such alias
    command = f"ssh -F {config}"
    subprocess.run(["git", "-C", str(root), "config", "core.sshCommand", command], check=True)
    assert project_key(root) == "github.com/acme/shop"
    https = _repo_with_origin(tmp_path / "https", "https://github.com/acme/shop")
    subprocess.run(["git", "-C", str(https), "config", "core.sshCommand", command], check=True)
    assert project_key(https) == "github.com/acme/shop"  # https is never asked of ssh


def test_a_git_insteadof_rewrite_is_applied(tmp_path: Path) -> None:
    """``url.<base>.insteadOf`` lets a clone say ``gh:acme/shop``; git connects to the
    rewritten URL, and so the key is the rewritten URL's, the same as a teammate's https clone."""
    root = _repo_with_origin(tmp_path / "repo", "gh:acme/shop")
    rewrite = ["config", "url.https://github.com/.insteadOf", "gh:"]
    subprocess.run(["git", "-C", str(root), *rewrite], check=True)
    assert project_key(root) == "github.com/acme/shop"


@pytest.mark.parametrize(
    "text",
    [
        f"token {SECRET}",
        "before <private>hidden</private> after",
        "<private>\nall hidden\n</private>",
        "password=hunter2-is-long-Enough9 in the config",
    ],
)
def test_the_gate_refuses_private_markers_and_secrets(text: str) -> None:
    assert gate.text_problem(text) is not None


@pytest.mark.parametrize(
    "text",
    ["", "Fixed the flaky payment test by freezing the clock", "key [REDACTED:github-token]"],
)
def test_the_gate_lets_clean_text_through(text: str) -> None:
    assert gate.text_problem(text) is None


@given(st.text(max_size=200))
def test_what_the_privacy_module_cleaned_passes_the_gate(text: str) -> None:
    from conkeeper.domain.privacy import clean_or_empty

    assert gate.text_problem(str(clean_or_empty(text))) is None


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ("x", "must be an object"),
        ({"uid": "", "kind": "observation", "created_at": 1}, "uid and a kind"),
        ({"uid": "a", "kind": "secret", "created_at": 1}, "uid and a kind"),
        ({"uid": "a", "kind": "prompt", "created_at": -1}, "created_at"),
        ({"uid": "a", "kind": "prompt", "created_at": True}, "created_at"),
        ({"uid": "a", "kind": "prompt", "created_at": 1, "title": 3}, "'title'"),
        ({"uid": "a", "kind": "prompt", "created_at": 1, "files": ["x"] * 65}, "'files'"),
        ({"uid": "a", "kind": "prompt", "created_at": 1, "narrative": "a\x00b"}, "NUL"),
    ],
)
def test_malformed_records_are_refused_with_a_reason(record: object, fragment: str) -> None:
    with pytest.raises(wire.WireError, match=fragment):
        wire.record_from_json(record)


def test_a_record_survives_the_wire_unchanged() -> None:
    from conkeeper.storage.team_pg import TeamRecord

    record = TeamRecord("u", "observation", "bugfix", "T", "S", ("f",), "N", ("c",), ("a.py",), 5)
    assert wire.record_from_json(wire.record_to_json(record)) == record


TEXTS = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.sampled_from(
            ["<private>", "</private>", f"token {SECRET}", "password: hunter2x9Q!", ""]
        ),
    ),
    max_size=4,
)


@given(st.lists(TEXTS, max_size=6))
def test_a_batch_verdict_equals_the_verdicts_of_its_records(batch: list[list[str]]) -> None:
    verdicts = gate.batch_problems(batch)
    assert [v is None for v in verdicts] == [gate.record_problem(r) is None for r in batch]
