"""Unit tests for secret redaction: one or more per kind, the output format, placeholders,
hard negatives and the ``SecretMatch`` contract."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

from conkeeper.domain.secrets import SECRET_KINDS, SecretMatch, find_secrets, redact

DATA = Path(__file__).parent / "data" / "secrets"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("secrets_make_corpus", DATA / "make_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _load_generator()


def _one(text: str) -> SecretMatch:
    matches = find_secrets(text)
    assert len(matches) == 1, matches
    return matches[0]


# --------------------------------------------------------------------------- every kind


@pytest.mark.parametrize("kind", SECRET_KINDS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_kind_is_found_and_named(kind: str, seed: int) -> None:
    snippet, value = GEN.SNIPPETS[kind](random.Random(seed))
    text = f"log line before\n{snippet}\nlog line after"
    match = _one(text)
    assert match.kind == kind
    assert text[match.start : match.end] == value
    assert redact(text) == text.replace(value, f"[REDACTED:{kind}]")


def test_every_kind_has_a_generator() -> None:
    assert set(GEN.SNIPPETS) == set(SECRET_KINDS)
    assert len(SECRET_KINDS) == len(set(SECRET_KINDS))


# --------------------------------------------------------------------------- output format


def test_flag_keeps_flag_name() -> None:
    assert redact("psql --password=Hunter2024") == "psql --password=[REDACTED:password]"
    assert redact("app --password Hunter2024 -v") == "app --password [REDACTED:password] -v"


def test_bearer_header_keeps_scheme() -> None:
    token = "Zx81" + "kQ2mW9pL0vB7nT3rY6cJ5hD4"
    assert (
        redact(f"Authorization: Bearer {token}") == "Authorization: Bearer [REDACTED:bearer-token]"
    )


def test_url_password_keeps_user_and_host() -> None:
    assert (
        redact("postgres://user:S3cretPw9@host/db")
        == "postgres://user:[REDACTED:url-password]@host/db"
    )


def test_password_with_at_sign_in_url_is_cut_to_the_last_at() -> None:
    assert (
        redact("redis://u:p@ss9word@cache:6379") == "redis://u:[REDACTED:url-password]@cache:6379"
    )


def test_mysql_short_flag_keeps_quotes() -> None:
    assert redact("mysql -u root -p'S3cr3t!' app") == "mysql -u root -p'[REDACTED:password]' app"
    assert redact("mysql -uroot -pS3cr3t app") == "mysql -uroot -p[REDACTED:password] app"


def test_key_value_forms() -> None:
    assert redact('{"password": "Winter2024!"}') == '{"password": "[REDACTED:password]"}'
    assert redact("PASSWORD: Winter2024!") == "PASSWORD: [REDACTED:password]"
    assert redact("db.passwd=Winter2024") == "db.passwd=[REDACTED:password]"
    assert redact("my password is Winter2024!") == "my password is [REDACTED:password]"


def test_generic_secret_needs_a_random_value() -> None:
    value = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    assert redact(f"api_key={value}") == "api_key=[REDACTED:generic-secret]"
    assert redact(f"SECRET_KEY: '{value}'") == "SECRET_KEY: '[REDACTED:generic-secret]'"
    assert redact("token=abc") == "token=abc"
    assert redact("secret=enabled") == "secret=enabled"


def test_query_parameter_stops_at_next_parameter() -> None:
    out = redact("GET /v1?api_key=a8F3kd92LmQp0zXv&page=2")
    assert out == "GET /v1?api_key=[REDACTED:generic-secret]&page=2"


def test_pem_block_is_cut_whole_and_text_around_kept() -> None:
    key = GEN.pem_private_key(random.Random(5))
    out = redact(f"before\n{key}\nafter")
    assert out == "before\n[REDACTED:private-key]\nafter"


def test_truncated_pem_block_is_still_cut() -> None:
    key_lines = GEN.pem_private_key(random.Random(6)).splitlines()[:3]
    out = redact("\n".join(key_lines))
    assert out == "[REDACTED:private-key]"


def test_service_account_json_keeps_structure() -> None:
    snippet, _value = GEN.SNIPPETS["gcp-service-account"](random.Random(7))
    out = redact(snippet)
    assert out == '{"type": "service_account", "private_key": "[REDACTED:gcp-service-account]"}'


def test_several_secrets_in_one_text() -> None:
    rng = random.Random(8)
    gh, ak = GEN.github_token(rng), GEN.aws_access_key(rng)
    out = redact(f"GITHUB_TOKEN={gh}\nAWS_ACCESS_KEY_ID={ak}\nPORT=8080")
    assert out == (
        "GITHUB_TOKEN=[REDACTED:github-token]\nAWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]\n"
        "PORT=8080"
    )


def test_aws_documentation_example_key_is_redacted() -> None:
    # Documented decision: example keys have the real shape, so they are cut like real ones.
    assert redact("AK" + "IAIOSFODNN7EXAMPLE") == "[REDACTED:aws-access-key]"


def test_crlf_text_keeps_line_endings() -> None:
    text = "a\r\nDB_PASSWORD=Winter2024!\r\nb\r\n"
    assert redact(text) == "a\r\nDB_PASSWORD=[REDACTED:password]\r\nb\r\n"


# --------------------------------------------------------------------------- placeholders


@pytest.mark.parametrize(
    "text",
    [
        "password=<your-password>",
        "API_KEY=xxx",
        "API_KEY=${API_KEY}",
        "TOKEN=$TOKEN",
        "password=changeme",
        'password: "********"',
        "OPENAI_API_KEY=your_api_key_here",
        "api_key=example",
        "password: null",
        "token=None",
        "token = process.env.GITHUB_TOKEN",
        'password = os.environ["DB_PASSWORD"]',
        "password = os.getenv('DB_PASSWORD')",
        "secret: ${{ secrets.DEPLOY_KEY }}",
        "password: '{{ vault_password }}'",
        "password = %(password)s",
        "postgres://user:password@localhost/db",
        "postgres://user:${DB_PASS}@localhost/db",
        "Authorization: Bearer $TOKEN",
        "Authorization: Bearer <token>",
        "password=[REDACTED:password]",
        "OPENAI_API_KEY=sk-...",
    ],
)
def test_placeholders_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


@pytest.mark.parametrize("prefix", ["gh" + "p_", "sk-" + "proj-", "xo" + "xb-", "gl" + "pat-"])
def test_masked_vendor_tokens_are_placeholders(prefix: str) -> None:
    text = f"TOKEN={prefix}{'x' * 40}"
    assert redact(text) == text


# --------------------------------------------------------------------------- hard negatives


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "HEAD is now at 3f78685 fix",
        "id=123e4567-e89b-42d3-a456-426614174000",
        "sha256:" + "ab" * 32,
        "nginx@sha256:" + "0f" * 32,
        'integrity="sha512-' + "Qm9v" * 22 + '=="',
        "color: #ff00ffcc",
        "git@github.com:org/repo.git",
        "https://user@host.example.com/path",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7" + "x9Yz" * 40 + " me@host",
        "version 1.2.3-rc.1+build.99",
        "/home/me/.config/app/token.json",
        "max_tokens=4096",
        "password = get_password()",
        "def login(password: str) -> None:",
        "docker run -p 8080:80 -u 1000:1000 img",
        "The password is required.",
        "Use --password to pass it on the command line.",
        "data:image/png;base64," + "iVBORw0KGgo" * 30,
        "",
    ],
)
def test_hard_negatives_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []


# --------------------------------------------------------------------------- contract


def test_matches_are_sorted_non_overlapping_with_lines() -> None:
    rng = random.Random(9)
    gh, ant = GEN.github_token(rng), GEN.anthropic_key(rng)
    text = f"first line\nexport GITHUB_TOKEN={gh}\n\nkey {ant} here"
    matches = find_secrets(text)
    assert [m.kind for m in matches] == ["github-token", "anthropic-key"]
    assert [m.line for m in matches] == [2, 4]
    assert matches[0].end <= matches[1].start
    assert text[matches[0].start : matches[0].end] == gh
    assert text[matches[1].start : matches[1].end] == ant


def test_secret_match_is_frozen() -> None:
    match = SecretMatch("jwt", 0, 3, 1)
    with pytest.raises(AttributeError):
        match.kind = "other"  # type: ignore[misc]


def test_overlapping_finds_are_merged_so_nothing_leaks() -> None:
    gh = GEN.github_token(random.Random(10))
    text = f'password="Winter {gh}"'
    out = redact(text)
    assert gh not in out and "Winter" not in out
    assert out.startswith('password="[REDACTED:')


def test_token_in_url_userinfo_keeps_the_host_and_path() -> None:
    token = "gh" + "s_16C7e42F292c6912E7710c838347Ae178B4a"
    text = f"git clone https://x-access-token:{token}@github.com/org/repo.git"
    out = redact(text)
    assert token not in out
    assert out.startswith("git clone https://x-access-token:[REDACTED:")
    assert out.endswith("]@github.com/org/repo.git")
