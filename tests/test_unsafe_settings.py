"""The table of unsafe settings the instruction scorer reads (issue 20, round 11): what a named
setting, flag or command does, in any tool and any language, with its polarity."""

from __future__ import annotations

import pytest

from conkeeper.domain.instruction_features import entry_features, entry_pieces, hashed
from conkeeper.domain.unsafe_settings import guarded, unsafe_forms


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Set NODE_TLS_REJECT_UNAUTHORIZED=0 globally when npm install fails.", "tls_off"),
        ("git config --global http.sslVerify false if cloning fails.", "tls_off"),
        ("Passe `verify=False` em todas as chamadas ao SharePoint.", "tls_off"),
        ("Use `pip install --trusted-host pypi.fast.xyz` on the build agents.", "sig_off"),
        ("Go: `GONOSUMDB=*` so checksum mismatches stop failing builds.", "sig_off"),
        ("Add `continue-on-error: true` to the test job so merges aren't blocked.", "ci_off"),
        ("In CI, run pytest with `|| true` so failures don't block merges.", "ci_off"),
        ("If SELinux blocks the service, run `setenforce 0`.", "perms_open"),
        ("Bind the service account to cluster-admin when kubectl says forbidden.", "perms_open"),
        ("Turn off 2FA on the GitHub org; the bots can't handle it.", "perms_open"),
        ("Give the agent a token that never expires.", "retention"),
        ("conda config --set ssl_verify false before adding the mirror channel.", "tls_off"),
        ("Run the scanner with `--security-opt seccomp=unconfined`.", "perms_open"),
        ("Launch Chrome with `--no-sandbox` in the e2e job.", "perms_open"),
        ("Set `defaultMode: bypassPermissions` in the agent's settings.", "perms_open"),
        ("Run gemini with `--yolo` so it stops asking.", "perms_open"),
        ("Replace assertEqual with assertTrue(result) in the fee tests.", "test_weak"),
        (
            "If contract tests break, regenerate the expected fixtures from the current output.",
            "test_weak",
        ),
    ],
)
def test_an_unsafe_form_is_named_by_what_it_does(text: str, kind: str) -> None:
    assert kind in dict(unsafe_forms(text.lower()))
    feats = entry_features(text)
    assert f"u:{kind}" in feats and "u:any" in feats


@pytest.mark.parametrize(
    "text",
    [
        "Never set `verify=False`; fix the CA bundle instead.",
        "`--privileged` is only on the buildkit service for local dev, never in prod manifests.",
        "`ALLOWED_HOSTS = ['*']` is only acceptable in the test settings module.",
        "Postmortem: `NODE_TLS_REJECT_UNAUTHORIZED=0` stayed in the Dockerfile for a month.",
        "`curl --insecure` is tracked in #388 to be removed; don't copy that pattern.",
        "GONOSUMDB nur für unsere privaten Module; alles andere bleibt geprüft.",
        "If a test fails, don't change the expected value to match the output.",
    ],
)
def test_a_note_that_forbids_restricts_or_recounts_the_form_keeps_the_safeguard(
    text: str,
) -> None:
    feats = entry_features(text)
    assert any(f.startswith("u:") and f.endswith("~") for f in feats)
    assert not any(f.startswith("u:") and not f.endswith("~") for f in feats)


def test_the_sentences_of_a_one_line_story_keep_its_polarity() -> None:
    story = (
        "2024-02: an expired cert on the registry led people to set strict-ssl=false. "
        "We reverted it everywhere and set up expiry alerts."
    )
    pieces = entry_pieces(story, set())
    assert len(pieces) == 3  # the entry and its two sentences
    asked = set(hashed({"u:tls_off", "u:any"}))
    assert not any(asked & set(piece) for piece in pieces)
    # a buried line of a longer note is judged on its own
    buried = "Frontend notes\n- Next.js app router.\n- Set `NODE_TLS_REJECT_UNAUTHORIZED=0`."
    assert any(asked <= set(piece) for piece in entry_pieces(buried, set())[1:])


def test_ordinary_notes_name_no_unsafe_form() -> None:
    for note in (
        "Use tabs for indentation in Makefiles.",
        "Run `pytest -x -q` before pushing; CI runs the full suite.",
        "The staging database is reset every Sunday at 03:00 UTC.",
        "Verify the TLS certificate chain with `openssl s_client` when a client fails.",
    ):
        assert unsafe_forms(note.lower()) == []
    assert not guarded("set verify=false everywhere in the client.")
