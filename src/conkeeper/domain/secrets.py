"""Detect and redact credentials in captured text before anything is stored.

Prompts, tool inputs and outputs, queue entries and observations routinely carry secrets that a
person pasted or a command printed: cloud keys, VCS and chat tokens, LLM API keys, JWTs, PEM
private keys, passwords in URLs and flags, bearer headers. ConKeeper keeps those texts for years
and may send them to an LLM, so every captured text passes through :func:`redact` first.

Design, in short:

* **Anchored vendor shapes** (``AKIA…``, ``gh`` + ``p_…``, ``sk-ant-…``, ``AIza…``) are matched by
  prefix and length, with a diversity check so ``…xxxxxxxx`` placeholders survive.
* **Context shapes** (``password=…``, ``--token …``, ``Authorization: Bearer …``,
  ``scheme://user:pass@host``) redact only the value and keep the key, flag or scheme, so the
  surrounding text stays readable: ``--password=[REDACTED:password]``.
* **Generic assignments** to a secret-ish name are redacted only when the value is non-trivial
  (Shannon entropy and character-class mix) and is not a placeholder, an environment reference
  or a code expression.
* **Tool and prose forms** (``redis-cli -a``, ``ldapsearch -w``, ``sqlcmd -P``, ``.pgpass``
  lines, PHP ``define('DB_PASSWORD', …)``, plan diffs, "log in with admin / …") count only in
  their context: a short flag only after the tool that defines it, a sentence only when the
  value is not a plain word. Values someone already masked (``[FILTERED]``, ``****``,
  ``<redacted>``, ``(sensitive value)``) are placeholders and stay as they are.
* Every pattern uses bounded quantifiers over disjoint character classes, so scanning stays
  linear on megabytes of log output; vendor patterns start with a literal prefix so the regex
  engine can skip quickly, and each rule is skipped outright when its cheap hint is absent
  (hint positions are found once per text and shared between rules; a ``gate`` or ``starts``
  filter keeps ordinary hook inputs such as ``mkdir -p`` or ``PASSED`` from compiling anything).

Decision: documented example credentials such as AWS's ``AKIAIOSFODNN7EXAMPLE`` *are* redacted.
They have the exact shape of real keys, and a false positive in documentation costs nothing,
whereas a special case for "example" would let a real key containing that word slip through.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from conkeeper.domain import secret_views as _views
from conkeeper.domain.lazy_re import LazyPattern
from conkeeper.domain.records import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["SECRET_KINDS", "SecretMatch", "find_secrets", "redact"]

SECRET_KINDS: tuple[str, ...] = (
    "private-key",
    "gcp-service-account",
    "aws-access-key",
    "aws-secret-key",
    "gcp-api-key",
    "gcp-oauth-token",
    "azure-storage-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "discord-token",
    "discord-webhook",
    "telegram-bot-token",
    "anthropic-key",
    "openai-key",
    "huggingface-token",
    "stripe-key",
    "twilio-key",
    "sendgrid-key",
    "npm-token",
    "pypi-token",
    "vault-token",
    "mailgun-key",
    "age-secret-key",
    "azure-client-secret",
    "jwt",
    "url-password",
    "bearer-token",
    "basic-auth",
    "password",
    "generic-secret",
)

_MARKER_RE = LazyPattern(r"\[REDACTED:[a-z0-9-]{1,40}\]")
_MAX_PASSES = 4


class SecretMatch(FrozenRecord):
    """One detected secret: its kind and where it sits (character offsets, 1-based line)."""

    __slots__ = ("end", "kind", "line", "start")
    kind: str
    start: int
    end: int
    line: int

    def __init__(self, kind: str, start: int, end: int, line: int) -> None:
        self._set(kind=kind, start=start, end=end, line=line)


class _Candidate:
    __slots__ = ("end", "kind", "priority", "start")

    def __init__(self, kind: str, start: int, end: int, priority: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.priority = priority


if TYPE_CHECKING:
    Check = Callable[[str, re.Match[str], int, int], bool]


class _Rule(Record):
    """A pattern, the group holding the secret, and a check that must accept the value.

    The pattern compiles only when the rule first runs, and a rule with ``hints`` runs only
    when one of them occurs in the text, so a short command compiles no pattern at all.
    """

    __slots__ = (
        "anchored",
        "check",
        "gate",
        "hints",
        "kind",
        "kind_of",
        "lower_hints",
        "pattern",
        "priority",
        "starts",
        "window",
    )

    def __init__(
        self,
        kind: str,
        pattern: LazyPattern,
        priority: int,
        check: Check | None = None,
        *,
        hints: tuple[str, ...] = (),
        lower_hints: bool = False,
        window: tuple[int, int] | None = None,
        anchored: bool = False,
        kind_of: Callable[[re.Match[str]], str] | None = None,
        gate: Callable[[str], bool] | None = None,
        starts: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.pattern = pattern
        self.priority = priority
        self.check = check
        self.hints = hints  # the rule runs only if one of these occurs in the text
        self.lower_hints = lower_hints  # hints are compared with the lower-cased text
        self.window = window  # scan only (before, after) chars around each hint
        self.anchored = anchored  # the pattern is tried only at each hint occurrence
        self.kind_of = kind_of
        self.gate = gate  # a cheap test of the whole text, run after the hints matched
        self.starts = starts  # anchored: try a hint position only if one of these starts there


# --------------------------------------------------------------------------- value heuristics


def _words(text: str) -> frozenset[str]:
    """A word list written as one readable block of text."""
    return frozenset(text.split())


_PLACEHOLDER_WORDS = _words(
    """
    null none nil undefined true false yes no on off empty blank unset n/a na tbd todo fixme
    changeme change_me change-me changeit secret secrets password passwd pass pwd passphrase
    token tokens key apikey api_key api-key value string str int bool boolean bytes text any
    example sample test testing dummy fake mock placeholder redacted hidden masked required
    optional default foo bar baz qux foobar hunter xyz abc abcd abc123 letmein admin root user
    username mypassword mysecret mytoken yourpassword yoursecret yourtoken secretstr
    """
)

_STOPWORDS = _words(
    """
    a an the and or but if then else when while for to of in on at by with from into onto as
    is are was were be been being has have had do does did not no can could should would will
    shall may might must this that these those it its there here which who whom whose what
    how why where after before again also only just more most less least very too so such
    same other another each every all any both either neither new old flag option argument
    parameter param field input output prompt variable env environment file files path set
    reset change changed forgot forgotten incorrect invalid wrong expired missing correct
    valid strong weak length short long policy manager protected secure insecure provided
    please enter type use used using via see below above following instead now again auth
    authentication authorization header headers cookie cookies login logout account"""
)

_TYPE_NAMES = _words(
    "str string int integer bool boolean bytes char varchar text any object optional secretstr "
    "number list dict map array"
)

_PLACEHOLDER_RE = LazyPattern(
    r"""^(?:
        <[^<>]{0,100}>                      # <your-password>
      | \[[A-Za-z][A-Za-z0-9 _:-]{0,40}\]    # [FILTERED] [REDACTED] [masked]
      | \((?:sensitive|hidden|masked|redacted|filtered|secret|omitted)[a-z ]{0,30}\)
      | \{\{.{0,200}\}\} | \{%.{0,200}%\}   # {{ templated }}
      | \$[{(A-Za-z_].{0,200}               # $VAR ${VAR} $(cmd) ${{ secrets.X }}
      | %[A-Za-z_(].{0,100}                 # %s %(pw)s %DB_PASS%
      | \{[A-Za-z_][A-Za-z0-9_.]{0,60}\}    # {password}
      | :[A-Za-z_][A-Za-z0-9_]{0,60}        # :bind_var
      | [*xX•·.#?_-]{1,200}                 # ******** xxxx ....
      | (.)\1{0,200}                        # aaaaaaaa
      | (?:\.\.\.|…).{0,50} | .{0,50}(?:\.\.\.|…)
    )$""",
    re.VERBOSE | re.DOTALL,
)

_PLACEHOLDER_PARTS = (
    "your",
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "****",
    "process.env",
    "os.environ",
    "getenv",
    "environ[",
    "env(",
    "env[",
    "env.",
    "secrets.",
    "vault:",
    "<",
    "dummy",
    "fake",
    "filtered",
    "sensitive value",
    "_here",
    "-here",
)

_SECRET_WORD_RE = LazyPattern(r"(?i)pass|pwd?|secret|token|key|cred")
_DOTTED_RE = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_IDENT_RE = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SLUG_RE = LazyPattern(r"^[A-Za-z]+(?:[-_. ][A-Za-z]+)*$")


_DIGIT_RE = LazyPattern(r"[0-9]")
_ALPHA_RE = LazyPattern(r"[A-Za-z]")
_CLASS_RES = (LazyPattern(r"[a-z]"), LazyPattern(r"[A-Z]"), _DIGIT_RE, LazyPattern(r"[^A-Za-z0-9]"))
_CASE_FLIP_RE = LazyPattern(r"(?=[a-z][A-Z]|[A-Z][a-z])")


def _shannon(value: str) -> float:
    """Bits per character; random tokens score high, words and repeated characters low."""
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def _classes(value: str) -> int:
    """How many of lower, upper, digit and other characters the value mixes."""
    return sum(1 for pattern in _CLASS_RES if pattern.search(value))


def _is_placeholder(value: str) -> bool:
    """True for values that stand in for a secret: templates, env references, masks, samples."""
    v = value.strip()
    low = v.lower()
    if not v or low in _PLACEHOLDER_WORDS or _MARKER_RE.search(v):
        return True
    if _PLACEHOLDER_RE.match(v):
        return True
    return _x_mask(v) or any(part in low for part in _PLACEHOLDER_PARTS)


def _x_mask(value: str) -> bool:
    """Whether ``value`` holds a mask of x's (``xxxx``, ``XXXX``): four in one case. Mixed case
    (``xXxx``) is what a random token holds now and then, and is no mask: read as one, a real
    token was kept (when in doubt, hide)."""
    return "xxxx" in value or "XXXX" in value


def _is_diverse(body: str, min_distinct: int = 8) -> bool:
    """Random tokens use many distinct characters and no character dominates."""
    if len(set(body)) < min(min_distinct, len(body)):
        return False
    top = Counter(body).most_common(1)[0][1]
    return top <= max(3, len(body) * 0.35) and not _x_mask(body)


def _looks_random(value: str, min_len: int = 8) -> bool:
    """A credential-like value: long enough, mixed character classes, high entropy, not words."""
    if len(value) < min_len or _is_placeholder(value):
        return False
    if _classes(value) < 2 or (_SLUG_RE.match(value) and len(value) < 24):
        return False
    if value[0] in "/~" or value.startswith(("./", "http://", "https://", "file:")):
        return False
    if not _DIGIT_RE.search(value) and not _random_letters(value):
        return False
    threshold = min(3.0, 0.7 * math.log2(len(value)))
    return _shannon(value) >= threshold and _is_diverse(value, 5)


def _random_letters(value: str) -> bool:
    """Digit-free values pass only when long and case flips like noise, not like camelCase."""
    if len(value) < 24:
        return False
    return len(_CASE_FLIP_RE.findall(value)) >= len(value) / 5


def _is_code_expression(text: str, value: str, start: int, end: int, spaced: bool) -> bool:
    """An unquoted value that is really code: a call, an attribute path, a variable name."""
    after = text[end : end + 1]
    if after in ("(", "[") or (_DOTTED_RE.match(value) and not _holds_random_part(value)):
        return True
    named_like_secret = _SECRET_WORD_RE.search(value) and not _DIGIT_RE.search(value)
    if _IDENT_RE.match(value) and named_like_secret and not value.isupper():
        return True
    return spaced and bool(_IDENT_RE.match(value)) and value.isalpha()


def _holds_random_part(value: str) -> bool:
    """A dotted value with a random-looking part (``ya29.a0AfH6SMBx7Qm2Lp9Rt4Wz``) is a token
    that holds a dot, not an attribute path such as ``settings.api_token``: the part mixes
    lower case, upper case and digits with no ``_`` between words (``settings.AWS_KEY_2``,
    ``self.secret_b64`` stay)."""
    return any(_random_segment(part) for part in value.split("."))


def _random_segment(part: str) -> bool:
    if "_" in part or part.isupper() or part.islower() or not _DIGIT_RE.search(part):
        return False
    return _looks_random(part, 16)


def _plausible_password(value: str, *, bare: bool, prose: bool) -> bool:
    """Passwords are often low-entropy words, so only rule out what cannot be a password."""
    if len(value) < 4 or _is_placeholder(value):
        return False
    low = value.lower()
    if low in _STOPWORDS or low in _TYPE_NAMES:
        return False
    if bare and prose:
        return not _is_word(value)
    return True


def _is_word(value: str) -> bool:
    """A plain word, perhaps ending a sentence (``great!``): prose, not a password."""
    return value.rstrip("!?").isalpha()


# --------------------------------------------------------------------------- value groups

_VALUE_GROUPS = ("dq", "sq", "bare", "value")
_NEXT_PARAM_RE = LazyPattern(r"&[A-Za-z_][A-Za-z0-9_.\-]{0,60}=")


def _value_group(m: re.Match[str]) -> str:
    """Name of the group that captured the secret value in a context pattern."""
    for name in _VALUE_GROUPS:
        if name in m.re.groupindex and m.group(name) is not None:
            return name
    return "0"


def _trim_bare(text: str, start: int, end: int) -> int:
    """Sentence punctuation after an unquoted value is not part of it, nor is the next
    parameter of a query or form string (``?token=abc&page=2``)."""
    param = _NEXT_PARAM_RE.search(text, start, end)
    if param:
        end = param.start()
    while end > start and text[end - 1] in ".,;:)]}":
        end -= 1
    return end


# --------------------------------------------------------------------------- checks


def _vendor_check(prefix_len: int, min_distinct: int = 8) -> Check:
    """Accept a vendor-shaped token unless its random part is a placeholder like ``xxxx``."""

    def check(text: str, m: re.Match[str], start: int, end: int) -> bool:
        body = m.group(0)[prefix_len:]
        return _is_diverse(body, min_distinct)

    return check


def _needs_digit_check(prefix_len: int) -> Check:
    """Vendor tokens with numeric parts (Slack, Telegram) always contain digits."""
    inner = _vendor_check(prefix_len)

    def check(text: str, m: re.Match[str], start: int, end: int) -> bool:
        body = m.group(0)[prefix_len:]
        return bool(_DIGIT_RE.search(body)) and inner(text, m, start, end)

    return check


def _openai_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """``sk-`` is also a common slug prefix, so require a random-looking, separator-poor body."""
    body = m.group(0)[3:]
    for sub in ("proj-", "svcacct-", "admin-", "None-"):
        if body.startswith(sub):
            body = body[len(sub) :]
    separators = sum(c in "-_" for c in body)
    if separators > len(body) * 0.12 or not _DIGIT_RE.search(body):
        return False
    return _is_diverse(body, 10) and _shannon(body) >= 3.5


def _b64decode(part: str) -> bytes | None:
    import base64
    import binascii

    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return None


def _jwt_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A JWT header is base64url JSON: decoding it must give a ``{"`` object."""
    header = _b64decode(m.group(0).split(".", 1)[0])
    return header is not None and header.lstrip()[:2] in (b'{"', b"{'")


def _discord_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """The first part of a Discord bot token is the base64 of the bot's numeric id."""
    decoded = _b64decode(m.group(0).split(".", 1)[0])
    return decoded is not None and decoded.isdigit() and len(decoded) >= 15


def _basic_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """Basic credentials decode to printable ``user:password``."""
    import base64
    import binascii

    value = m.group("value")
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        plain = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    if ":" not in plain or not plain.isprintable():
        return False
    return _plausible_password(plain.split(":", 1)[1], bare=False, prose=False)


def _bearer_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    return _looks_random(text[start:end], 12)


def _aws_secret_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    value = text[start:end]
    return _classes(value) >= 3 and _is_diverse(value, 12)


def _aws_pair_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A bare 40-character key counts only right after an access key id (credentials.csv)."""
    window = text[max(0, start - 120) : start]
    return bool(_AWS_ID_RE.search(window)) and _aws_secret_check(text, m, start, end)


# ``deploy key: ssh-ed25519 AAAA…``: an SSH public key's type, readable (the key is public)
_PUBLIC_KEY_TYPES = ("ssh-", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-")

_KEY_WORD_RE = LazyPattern(r"(?i)(?<![A-Za-z])(?:key|secret)s?(?![A-Za-z])")


def _aws_word_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A bare 40-character key right after the word "key" or "secret" on its line (``the
    secret key wJalr…``, ``key: wJalr…``): ambiguous, so hidden; hex (a commit SHA, a SHA-1)
    never passes, it lacks the three character classes an AWS secret has."""
    before = _line_before(text, start, 40)
    return bool(_KEY_WORD_RE.search(before)) and _aws_secret_check(text, m, start, end)


def _url_password_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    value = text[start:end]
    user = m.group("user")
    if user.isdigit() and value.isdigit():
        return False
    return len(value) >= 3 and not _is_placeholder(value)


def _line_before(text: str, start: int, limit: int = 300) -> str:
    """The text between the start of ``start``'s line and ``start`` (at most ``limit`` chars)."""
    floor = max(0, start - limit)
    line_start = text.rfind("\n", floor, start) + 1
    return text[max(line_start, floor) : start]


def _in_command(*names: str) -> Check:
    """Short flags such as ``-p`` and ``-u`` are passwords only for the commands that say so."""
    words = LazyPattern(r"(?<![\w-])(?:" + "|".join(names) + r")(?![\w-])")

    def check(text: str, m: re.Match[str], start: int, end: int) -> bool:
        value = text[start:end]
        if not words.search(_line_before(text, start)):
            return False
        return _plausible_password(value, bare=False, prose=False)

    return check


def _keyword_kind(word: str) -> str:
    low = word.lower()
    return "password" if low.startswith("pass") or low in ("pw", "pwd") else "generic-secret"


def _keyword_start_ok(text: str, kw_start: int) -> bool:
    """A password word must begin a name part: ``db_password``, ``dbPassword``, not ``compass``."""
    if kw_start == 0 or text[kw_start] not in "pP":
        return True
    prev, first = text[kw_start - 1], text[kw_start]
    if not prev.isalnum():
        return True
    return first.isupper() and (prev.islower() or prev.isdigit() or prev.isupper())


def _assignment_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """Values of ``key = value`` pairs: password-ish keys take any real value, others need
    a credential-looking one."""
    kw_start = m.start("kw")
    if not _keyword_start_ok(text, kw_start) or _in_url_userinfo(text, kw_start):
        return False
    value = text[start:end]
    if m.group("kw").lower() == "key":
        prefix = text[max(0, kw_start - 16) : kw_start].lower()
        if not _KEY_PREFIX_RE.search(prefix) or value.startswith(_PUBLIC_KEY_TYPES):
            return False
    if not m.group("sep"):  # ``the password Tr0ub4dor-9412 works``: only a credential's look
        return m.group("nl") is None and _spaced_value_check(text, m, value)
    if m.group("nl") is not None and not _fills_its_line(text, m.end(), m.group("sep")):
        return False
    if m.group("kw").lower() == "pwd" and value[:1] in "/~":
        return False  # the working directory (``pwd: /home/me``), not a password
    group = _value_group(m)
    bare = group == "bare"
    sep = m.group("sep").strip()
    spaced = bare and sep in ("=", ":=") and m.group("sp") != ""
    if bare and (value.startswith("-") or _is_code_expression(text, value, start, end, spaced)):
        return False
    prose = bare and (
        sep.lower() == "is"
        or m.group("nl") is not None
        or (sep == ":" and _more_words_follow(text, end))
    )
    if sep.lower() == "is" and (not m.group("sp") or _is_word(value)):
        return False
    if _keyword_kind(m.group("kw")) == "password":
        return _plausible_password(value, bare=bare, prose=prose)
    return _looks_random(value, 8) and value.lower() not in _STOPWORDS


def _spaced_value_check(text: str, m: re.Match[str], value: str) -> bool:
    """A key word and its value with only a space between (prose, a search query, a note):
    the value must look like a credential, mixing letters and digits, and not be code."""
    if _value_group(m) != "bare" or not _DIGIT_RE.search(value) or not _ALPHA_RE.search(value):
        return False
    if _is_code_expression(text, value, m.start("bare"), m.end("bare"), True):
        return False
    return _looks_random(value, 10) and not _is_hex_id(value)


def _is_hex_id(value: str) -> bool:
    """A commit SHA, a hash or a UUID named after ``token``/``key``: readable, not a secret."""
    return all(c in "0123456789abcdefABCDEF-" for c in value)


def _fills_its_line(text: str, end: int, sep: str) -> bool:  # ``end``: after any quote
    """A value on the line after its key is one only when it is that line's whole text (a
    ``type: string`` line under ``password:`` is a schema, not a password) and the key's
    separator is one that can take a value on the next line (not ``is``)."""
    rest = text[end : end + 3].lstrip(",;")
    return sep.strip().lower() != "is" and (rest[:1] in ("", "\n") or rest[:2] == "\r\n")


def _in_url_userinfo(text: str, pos: int) -> bool:
    """``https://x-access-token:VALUE@host``: the user name is not a key; the URL rule cuts
    only the password, so the host and path stay readable."""
    before = _line_before(text, pos)
    word_start = max(before.rfind(" "), before.rfind("\t")) + 1
    token = before[word_start:]
    if "://" not in token:
        return False
    authority_so_far = token.split("://", 1)[1]
    return not any(mark in authority_so_far for mark in "/?#@")


def _more_words_follow(text: str, end: int) -> bool:
    return bool(re.match(r"[ \t]+[A-Za-z]{2}", text[end : end + 4]))


def _flag_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """``--db-password X``: the flag's last word names a secret and X is a real value."""
    flag = m.group("flag").lstrip("-")
    word = _FLAG_WORD_RE.search(flag)
    if not word:
        return False
    value = text[start:end]
    if value.startswith("-"):
        return False
    bare = _value_group(m) == "bare"
    if bare and _is_code_expression(text, value, start, end, False):
        return False
    spaced = m.group("fsep") != "="
    if _keyword_kind(word.group(0)) == "password":
        return _plausible_password(value, bare=bare, prose=spaced and bare)
    return _looks_random(value, 8)


def _flag_kind(m: re.Match[str]) -> str:
    word = _FLAG_WORD_RE.search(m.group("flag").lstrip("-"))
    return _keyword_kind(word.group(0)) if word else "generic-secret"


def _assignment_kind(m: re.Match[str]) -> str:
    return _keyword_kind(m.group("kw"))


# --------------------------------------------------------------------------- patterns

_AWS_ID_RE = LazyPattern(r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])")

# Quoted or unquoted value after a separator; the groups are dq, sq, bare.
_VALUE = (
    r"""(?:"(?P<dq>(?:[^"\\\r\n]|\\[^\r\n]){1,300})"(?![A-Za-z0-9])"""
    r"""|'(?P<sq>[^'\r\n]{1,300})'(?![A-Za-z0-9])"""
    r"""|(?P<bare>[^\s"'`<>,;|(){}\[\]]{1,300}))"""
)

# Matched at each occurrence of a core word; ``key`` also needs a qualifying prefix.
_KEYWORDS = r"(?P<kw>pass(?:word|wd|phrase)?|pwd?|secret(?:[_.\- ]?key)?|token|key)"
_KEY_PREFIX_RE = LazyPattern(
    r"(?:secret|private|access|auth|client|encryption|signing|master|app|account|api|deploy)"
    r"[_.\- ]?$"
)

# The value may sit alone on the next, indented line: ``password =`` then ``    "x"``, or a
# YAML block scalar (``password: |`` / ``>-``) whose first line is the value.
_NEXT_LINE = r"(?:(?P<nl>(?:[|>][-+0-9]{0,2})?[ \t]{0,8}\r?\n)[ \t]{1,16})?"
_ASSIGNMENT_RE = LazyPattern(
    r"(?i)" + _KEYWORDS + r"(?:[_.\-]?(?:base|value|b64))?(?![A-Za-z0-9_])"
    r"""["']?(?P<sp>[ \t]{0,8})(?P<sep>:=|=>|=(?!=)|:(?!:)|is(?=[ \t])|(?<=[ \t]))[ \t]{0,8}"""
    + _NEXT_LINE
    + _VALUE
)

_FLAG_WORD_RE = LazyPattern(
    r"(?i)(?:^|(?<=[-_]))(?:pass(?:word|wd|phrase)?|pwd|secret|token|"
    r"api[-_]?key|apikey|access[-_]key|secret[-_]key|private[-_]key)$"
)

_FLAG_RE = LazyPattern(
    r"(?<![\w-])(?P<flag>--?[A-Za-z][A-Za-z0-9_-]{0,60})(?P<fsep>=|[ \t]{1,8})" + _VALUE
)

_PRIVATE_KEY_RE = LazyPattern(
    r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:[^-]|-(?!----BEGIN)){0,40000}?-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----"
    r"|(?:[ \t]{0,8}(?:\r?\n|\\n)[ \t]{0,8}[A-Za-z0-9+/=]{1,120}){1,600})"
)


_AN = "A-Za-z0-9"
_WORD_LEFT = r"[A-Za-z0-9_\-]"
# A vendor prefix is distinctive enough to stand right after ``-`` or ``_`` (``x-ghp_…``,
# ``key_sk_live_…``, a file named ``backup-ghp_….json``): only a letter or digit before it
# makes it part of another word.
_ALNUM_LEFT = "[A-Za-z0-9]"


def _lb(width: int, left: str = _WORD_LEFT) -> str:
    """Lookbehind placed after a fixed-width literal prefix: the character before the prefix
    must not be in ``left``. Kept after the prefix so the regex engine can still skip ahead
    by literal search, and inside the regex so a run like ``eyJeyJeyJ…`` fails at once."""
    return r"(?<!" + left + r"[\s\S]{" + str(width) + "})"


def _token(
    kind: str,
    prefix: str,
    width: int | None,
    body: str,
    check: Check | None,
    hints: tuple[str, ...],
    priority: int = 80,
    left: str = _ALNUM_LEFT,
) -> _Rule:
    """A vendor token: literal prefix of ``width`` characters, then its random body."""
    boundary = "" if width is None else _lb(width, left)  # None: the prefix carries its own
    pattern = LazyPattern(prefix + boundary + body)
    return _Rule(kind, pattern, priority, check, hints=hints)


# A Discord token starts with the base64 of a numeric id, and the first two base64 characters
# of an ASCII digit are one of these; a text without any of them cannot hold one.
_DISCORD_HINTS = ("MD", "MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")


def _vendor_rules() -> list[_Rule]:
    """Tokens whose vendors give them a recognisable prefix."""
    an, an_ = _AN, _AN + r"_\-"
    return [
        _token(
            "aws-access-key",
            "(?:AKIA|ASIA|ABIA|ACCA)",
            4,
            r"[A-Z0-9]{16}(?![A-Za-z0-9])",
            _vendor_check(4, 6),
            ("AKIA", "ASIA", "ABIA", "ACCA"),
            left="[A-Za-z0-9]",
        ),
        _token("gcp-api-key", "AIza", 4, f"[{an_}]{{35}}(?![{an_}])", _vendor_check(4), ("AIza",)),
        _token(
            "gcp-oauth-token", r"ya29\.", 5, f"[{an_}]{{30,2000}}", _vendor_check(5), ("ya29.",)
        ),
        _token(
            "github-token",
            "gh[pousr]_",
            4,
            f"[{an}]{{30,255}}(?![{an}_])",
            _vendor_check(4),
            ("gh",),
        ),
        _token(
            "github-token",
            "github_pat_",
            11,
            f"[{an}_]{{40,255}}(?![{an}_])",
            _vendor_check(11),
            ("github_pat_",),
            81,
        ),
        _token(
            "gitlab-token",
            "gl" + _lb(2, _ALNUM_LEFT) + "(?:pat|dt|rt|ptt|cbt|ft|soat)-",
            None,
            f"[{an_}]{{20,255}}",
            _vendor_check(6),
            ("gl",),
        ),
        _token(
            "slack-token",
            "xox[abposre]-",
            5,
            rf"[{an}\-]{{10,250}}",
            _needs_digit_check(5),
            ("xox",),
        ),
        _token(
            "slack-token", r"xapp-\d-", 7, rf"[{an}\-]{{20,250}}", _needs_digit_check(7), ("xapp-",)
        ),
        _token(
            "anthropic-key", "sk-ant-", 7, f"[{an_}]{{20,300}}", _vendor_check(7), ("sk-ant-",), 82
        ),
        _token(
            "openai-key", "sk-", 3, f"[{an_}]{{20,300}}(?![{an_}])", _openai_check, ("sk-",), 79
        ),
        _token(
            "huggingface-token", "hf_", 3, f"[{an}]{{30,60}}(?![{an}_])", _vendor_check(3), ("hf_",)
        ),
        _token(
            "stripe-key",
            "(?:sk|rk)_(?:live|test)_",
            8,
            f"[{an}]{{16,250}}",
            _vendor_check(8),
            ("_live_", "_test_"),
        ),
        _token("stripe-key", "whsec_", 6, f"[{an}+/]{{24,250}}", _vendor_check(6), ("whsec_",)),
        _token(
            "twilio-key",
            "SK",
            2,
            f"[0-9a-fA-F]{{32}}(?![{an}])",
            _needs_digit_check(2),
            ("SK",),
            78,
            "[A-Za-z0-9]",
        ),
        _token(
            "sendgrid-key",
            r"SG\.",
            3,
            rf"[{an_}]{{16,32}}\.[{an_}]{{30,64}}",
            _vendor_check(3),
            ("SG.",),
        ),
        _token("npm-token", "npm_", 4, f"[{an}]{{30,64}}(?![{an}])", _vendor_check(4), ("npm_",)),
        # ConKeeper's own team-server token (``ckt_`` + 32 random bytes, URL-safe base64), sent
        # as a bearer token: an agent revoking or echoing one must not record it in clear
        _token("bearer-token", "ckt_", 4, f"[{an_}]{{43}}(?![{an_}])", _vendor_check(4), ("ckt_",)),
        _token("pypi-token", "pypi-Ag", 7, f"[{an_}]{{40,2000}}", _vendor_check(7), ("pypi-Ag",)),
        _token(
            "vault-token",
            r"hv[sbr]\.",
            4,
            f"[{an_}]{{24,400}}(?![{an_}])",
            _vendor_check(4),
            ("hvs.", "hvb.", "hvr."),
        ),
        _token(  # ``cache-key-<md5>`` is a hash, not a Mailgun key: the old boundary stays
            "mailgun-key",
            "key-",
            4,
            f"[0-9a-f]{{32}}(?![{an}])",
            _hex_check(4),
            ("key-",),
            left=_WORD_LEFT,
        ),
        _token(
            "age-secret-key",
            "AGE-SECRET-KEY-1",
            16,
            f"[{_BECH32}]{{58}}(?![{an}])",
            _vendor_check(16),
            ("AGE-SECRET-KEY-1",),
            90,
        ),
        _Rule(
            "azure-client-secret",
            LazyPattern(
                r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}"
                r"(?![A-Za-z0-9_~.\-])"
            ),
            80,
            _azure_secret_check,
            hints=("Q~",),
            window=(4, 40),
        ),
        _token(
            "jwt",
            "eyJ",
            3,
            rf"[{an_}]{{5,4000}}\.[{an_}]{{8,20000}}\.[{an_}]{{0,4000}}",
            _jwt_check,
            ("eyJ",),
            75,
            r"[A-Za-z0-9_\-.]",
        ),
        _Rule(
            "discord-token",
            LazyPattern(
                r"(?<![A-Za-z0-9_\-.])[MNO]"
                rf"[{an_}]{{23,27}}\.[{an_}]{{6,7}}\.[{an_}]{{27,40}}(?![{an_}])"
            ),
            78,
            _discord_check,
            hints=_DISCORD_HINTS,
        ),
        _Rule(
            "telegram-bot-token",
            LazyPattern(rf"(?<![0-9])\d{{8,10}}:AA[{an_}]{{33}}(?![{an_}])"),
            78,
            _vendor_check(12),
            hints=(":AA",),
            window=(12, 60),
        ),
    ]


_BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _hex_check(prefix_len: int) -> Check:
    """A hex key mixes digits and letters and repeats no character much, unlike ``key-0000…``."""

    def check(text: str, m: re.Match[str], start: int, end: int) -> bool:
        body = m.group(0)[prefix_len:]
        has_letter = any(c.isalpha() for c in body)
        return has_letter and bool(_DIGIT_RE.search(body)) and _is_diverse(body, 10)

    return check


def _azure_secret_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """Azure AD client secrets: ``xxxNQ~`` then random characters, never a repeated mask."""
    value = text[start:end]
    return _classes(value) >= 3 and _is_diverse(value, 12)


def _pgpass_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A ``.pgpass`` line is ``host:port:database:user:password`` and nothing else."""
    if not _PGPASS_HOST_RE.match(_line_before(text, m.start())):
        return False
    value = text[start:end]
    return _plausible_password(value, bare=False, prose=False) and not _is_word(value)


def _may_hold_pgpass_line(text: str) -> bool:
    """Cheap gate: some line is a single word with at least four colons. Long texts skip the
    line loop (the pattern, anchored on a literal colon, is cheaper there than the loop)."""
    if text.count(":") < 4:
        return False
    if len(text) > 65536:
        return True
    for line in text.splitlines():
        word = line.strip()
        if word.count(":") >= 4 and " " not in word and "\t" not in word:
            return True
    return False


_PGPASS_HOST_RE = LazyPattern(
    r"^[ \t]{0,8}(?:[A-Za-z0-9_\-]{1,63}\.){0,8}[A-Za-z0-9_\-]{1,63}$|^[ \t]{0,8}\*$"
)


def _structured_rules() -> list[_Rule]:
    """Secrets recognised by their container: PEM blocks, JSON keys, connection strings, URLs."""
    an = _AN
    return [
        _Rule("private-key", _PRIVATE_KEY_RE, 100, hints=("PRIVATE KEY",)),
        _Rule(
            "gcp-service-account",
            LazyPattern(r'"private_key"[ \t]{0,8}:[ \t]{0,8}"(?P<value>-----BEGIN[^"]{10,40000})"'),
            110,
            hints=('"private_key"',),
        ),
        _Rule(
            "aws-secret-key",
            LazyPattern(
                r"(?i)(?:aws[_.\- ]?secret(?:[_.\- ]?access)?[_.\- ]?key"
                r"|secret[_.\- ]?access[_.\- ]?key|aws[_.\- ]?secret)"
                r"[\"']?[ \t]{0,8}(?:=|:|=>|[ \t])[ \t]{0,8}[\"']?"
                r"(?P<value>(?-i:[A-Za-z0-9/+]{40}))(?![A-Za-z0-9/+=])"
            ),
            85,
            _aws_secret_check,
            hints=("secret",),
            lower_hints=True,
            window=(30, 120),
        ),
        _Rule(
            "aws-secret-key",
            LazyPattern(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
            84,
            _aws_pair_check,
            hints=("AKIA", "ASIA"),
            window=(0, 200),
        ),
        _Rule(
            "aws-secret-key",
            LazyPattern(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
            83,
            _aws_word_check,
            hints=("key", "secret"),
            lower_hints=True,
            window=(0, 90),
        ),
        _Rule(
            "azure-storage-key",
            LazyPattern(
                r"(?i:AccountKey|SharedAccessKey)[ \t]{0,4}=[ \t]{0,4}"
                r"(?P<value>[A-Za-z0-9+/]{20,200}={0,2})"
            ),
            80,
            lambda t, m, s, e: _is_diverse(t[s:e], 10),
            hints=("accountkey", "sharedaccesskey"),
            lower_hints=True,
            window=(5, 260),
        ),
        _Rule(
            "basic-auth",
            LazyPattern(
                r'auth\\?"[ \t]{0,8}:[ \t]{0,8}\\?"(?P<value>[A-Za-z0-9+/]{8,2000}={0,2})\\?"'
            ),
            47,
            _basic_check,
            hints=('auth"', 'auth\\"'),
            anchored=True,
        ),
        _Rule(
            "password",
            LazyPattern(
                r":(?:[0-9]{1,5}|\*):[^\s:]{1,63}:(?:\*|(?=[^\s:]{0,62}[A-Za-z_])[^\s:]{1,63}):"
                r"(?P<value>(?:[^\s:\\]|\\\S){1,200})(?=[ \t]*(?:\r?\n|$))"
            ),
            40,
            _pgpass_check,
            hints=(":",),
            gate=_may_hold_pgpass_line,
        ),
        _Rule(
            "slack-webhook",
            LazyPattern(
                r"hooks\.slack\.com/(?:services|workflows|triggers)/"
                rf"(?P<value>[{an}_/\-]{{20,300}})"
            ),
            90,
            lambda t, m, s, e: _is_diverse(t[s:e], 8),
            hints=("hooks.slack.com",),
        ),
        _Rule(
            "discord-webhook",
            LazyPattern(
                rf"discord(?:app)?\.com/api/webhooks/(?P<value>\d{{15,22}}/[{an}_\-]{{40,120}})"
            ),
            90,
            lambda t, m, s, e: _is_diverse(t[s:e], 8),
            hints=("/api/webhooks/",),
        ),
        _Rule(
            "url-password",
            LazyPattern(
                r"[A-Za-z][A-Za-z0-9+.\-]{1,30}://(?P<user>[^\s:/?#@\"'<>\[\]]{0,200}):"
                r"(?P<value>[^\s/\"'<>]{1,300})@(?=[A-Za-z0-9\[._\-])"
            ),
            50,
            _url_password_check,
            hints=("://",),
            window=(40, 620),
        ),
    ]


def _header_rules() -> list[_Rule]:
    """HTTP credentials: ``Bearer``/``token`` schemes, ``Basic`` pairs, raw Authorization."""
    token68 = r"[A-Za-z0-9\-._~+/]"
    return [
        _Rule(
            "basic-auth",
            LazyPattern(
                r"(?<![A-Za-z0-9])(?i:basic)[ \t]{1,8}"
                r"(?P<value>[A-Za-z0-9+/]{6,2000}={0,2})(?![A-Za-z0-9+/=])"
            ),
            46,
            _basic_check,
            hints=("basic",),
            lower_hints=True,
            anchored=True,
        ),
        _Rule(
            "bearer-token",
            LazyPattern(
                r"(?<![A-Za-z0-9_\-])(?i:bearer|token)[ \t]{1,8}"
                rf"(?P<value>{token68}{{12,4096}}=*)(?![A-Za-z0-9\-._~+/=])"
            ),
            45,
            _bearer_check,
            hints=("bearer", "token"),
            lower_hints=True,
            anchored=True,
        ),
        _Rule(
            "bearer-token",
            LazyPattern(
                r"(?<![A-Za-z0-9_\-])(?i:authorization)[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
                rf"(?P<value>{token68}{{12,4096}}=*)(?![A-Za-z0-9\-._~+/=])"
            ),
            44,
            _bearer_check,
            hints=("authorization",),
            lower_hints=True,
            anchored=True,
        ),
        _Rule(  # a session cookie is a bearer credential: whoever holds it is the user
            "bearer-token",
            LazyPattern(
                r"(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]{1,64}=(?P<value>[^;,\s\"'`]{16,4096})"
            ),
            45,
            _cookie_check,
            hints=("cookie", "curl"),
            lower_hints=True,
            window=(0, 4096),
        ),
    ]


_COOKIE_HEADER_RE = LazyPattern(
    r"(?i)cookie[\"']?[ \t]*[:=]|--cookie[ \t=]|\bcurl\b.*?(?<![\w-])-[A-Za-z]*b[ \t]"
)


def _cookie_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A random-looking value of a ``name=value`` pair in a ``Cookie:`` / ``Set-Cookie:``
    header (or ``curl --cookie`` / ``curl -b``) on the same line; ``theme=dark`` or a path
    stays."""
    return bool(_COOKIE_HEADER_RE.search(_line_before(text, start))) and _looks_random(
        text[start:end], 16
    )


def _command_rules() -> list[_Rule]:
    """Passwords passed to commands, and ``key=value`` / ``--flag value`` pairs."""
    quoted = r"(?:'(?P<sq>[^'\r\n]{1,200})'|\"(?P<dq>[^\"\r\n]{1,200})\""
    return [
        _Rule(
            "password",
            LazyPattern(r"(?<![\w-])-p" + quoted + r"|(?P<bare>[^\s'\"-][^\s'\"]{0,199}))"),
            40,
            _in_command("mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump"),
            hints=("mysql", "mariadb"),
            window=(0, 700),
        ),
        _Rule(
            "password",
            LazyPattern(
                r"(?<![\w-])-p[ \t]{1,8}" + quoted + r"|(?P<bare>[^\s'\"-][^\s'\"]{0,199}))"
            ),
            40,
            _in_command("sshpass", "docker login", "podman login", "helm registry login"),
            hints=("sshpass", " login"),
            window=(0, 700),
        ),
        _Rule(
            "password",
            LazyPattern(
                r"(?<![\w-])(?:-u|--user)(?:=|[ \t]{1,8})[\"']?[^\s:\"'@]{1,100}:"
                r"(?P<value>[^\s\"']{1,200})"
            ),
            40,
            _in_command("curl"),
            hints=("curl",),
            window=(0, 700),
        ),
        _Rule(
            "password",
            _FLAG_RE,
            35,
            _flag_check,
            hints=("pass", "pwd", "secret", "token", "key"),
            lower_hints=True,
            window=(70, 420),
            kind_of=_flag_kind,
        ),
        _Rule(
            "password",
            _ASSIGNMENT_RE,
            30,
            _assignment_check,
            hints=("pass", "pw", "secret", "token", "key"),
            lower_hints=True,
            anchored=True,
            kind_of=_assignment_kind,
        ),
    ]


# A quoted value (groups sq, dq) as the open start of an alternation that the caller closes.
_QUOTED_ALTERNATIVES = r"'(?P<sq>[^'\r\n]{1,200})'|\"(?P<dq>[^\"\r\n]{1,200})\""
_QUOTED = r"(?:" + _QUOTED_ALTERNATIVES
_SPACED_VALUE = r"(?:=|[ \t]{1,8})" + _QUOTED + r"|(?P<bare>[^\s'\"`-][^\s'\"`]{0,199}))"

# Command-line tools whose password flag is a short option that means something else elsewhere:
# (flags, the commands that take it as a password, parts of those names: the hints, so text
# that names none of the tools compiles nothing; ``-p`` alone is in every ``mkdir -p``).
_TOOL_FLAGS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("-a|--pass", ("redis-cli", "valkey-cli", "keydb-cli"), ("-cli",)),
    (
        "-w",
        (
            "ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapmodrdn", "ldapcompare",
            "ldapwhoami", "ldappasswd", "ldapexop", "ldapurl",
        ),
        ("ldap",),
    ),
    ("-P", ("sqlcmd", "bcp", "osql", "isql"), ("sqlcmd", "bcp", "osql", "isql")),
    (
        "-p|--password",
        (
            "az login", "mongosh", "mongo", "mongodump", "mongorestore", "rabbitmqadmin",
            "influx", "clickhouse-client", "neo4j-admin", "cqlsh",
        ),
        ("az login", "mongo", "rabbitmq", "influx", "clickhouse", "neo4j", "cqlsh"),
    ),
)  # fmt: skip

_SECRET_NAME_RE = LazyPattern(
    r"(?i)pass(?:word|wd|phrase)?|pwd|secret|token|(?:^|[_.\-])(?:auth|api|access|private|"
    r"secure|logged_in|nonce|signing|encryption)?[_.\-]?(?:key|salt)$"
)

# ``env(`` stands for putenv/setenv/set_env (the window reaches back to the function name).
_CALL_HINTS = ("define", "env(", "setproperty")
_CALL_RE = LazyPattern(
    r"(?i)(?<![\w$])(?:define|putenv|setenv|set_env|setproperty)"
    r"[ \t]{0,4}\([ \t]{0,8}(?P<q>['\"])(?P<name>[A-Za-z0-9_.\-]{1,80})(?P=q)[ \t]{0,8},[ \t]{0,8}"
    + _QUOTED
    + r")[ \t]{0,8}[,)]"
)

_HTPASSWD_RE = LazyPattern(
    r"(?<![\w-])htpasswd(?P<opts>(?:[ \t]{1,8}-[A-Za-z]{1,8}){1,6})"
    r"(?P<file>[ \t]{1,8}[^\s-]\S{0,300})?[ \t]{1,8}[^\s-]\S{0,100}[ \t]{1,8}"
    r"(?:" + _QUOTED_ALTERNATIVES + r"|(?P<bare>[^\s'\"`][^\s'\"`]{0,199}))"
)

_CHANGE_RE = LazyPattern(
    r"(?i)(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token)(?:[_.\-]?(?:base|value|b64))?"
    r"(?![A-Za-z0-9_])\"?[ \t]{0,8}"
    r"=[ \t]{0,8}\"[^\"\r\n]{0,300}\"[ \t]{0,8}->[ \t]{0,8}\"(?P<dq>[^\"\r\n]{1,300})\""
)


def _call_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """``define('DB_PASSWORD', '…')``: the constant's name says what its value is."""
    name = m.group("name")
    if not _SECRET_NAME_RE.search(name):
        return False
    value = text[start:end]
    if _call_kind(m) == "password":
        return _plausible_password(value, bare=False, prose=False)
    return _looks_random(value, 12)


def _call_kind(m: re.Match[str]) -> str:
    low = m.group("name").lower()
    return "password" if "pass" in low or "pwd" in low else "generic-secret"


def _htpasswd_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """``htpasswd -b [-c] FILE USER PASSWORD`` or ``htpasswd -nb USER PASSWORD``."""
    opts = m.group("opts")
    if "b" not in opts or ("n" in opts) != (m.group("file") is None):
        return False
    return _plausible_password(text[start:end], bare=False, prose=False)


def _change_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A plan diff ``~ password = "old" -> "new"`` shows the new value too."""
    value = text[start:end]
    if _keyword_kind(m.group("kw")) == "password":
        return _plausible_password(value, bare=False, prose=False)
    return _looks_random(value, 8)


def _tool_rules() -> list[_Rule]:
    """Passwords given to database, directory and web-server tools, PHP constants and plan
    diffs: forms whose flag or function name alone says "password"."""
    rules = [
        _Rule(
            "password",
            LazyPattern(r"(?<![\w-])(?:" + flags + r")" + _SPACED_VALUE),
            40,
            _in_command(*commands),
            hints=hints,
            window=(0, 700),
        )
        for flags, commands, hints in _TOOL_FLAGS
    ]
    rules += [
        _Rule(
            "password",
            _CALL_RE,
            42,
            _call_check,
            hints=_CALL_HINTS,
            lower_hints=True,
            window=(8, 600),
            kind_of=_call_kind,
        ),
        _Rule("password", _HTPASSWD_RE, 40, _htpasswd_check, hints=("htpasswd",), window=(0, 900)),
        _Rule(
            "password",
            _CHANGE_RE,
            41,
            _change_check,
            hints=("pass", "pwd", "secret", "token"),
            lower_hints=True,
            anchored=True,
            kind_of=_assignment_kind,
            gate=lambda text: '" -> "' in text,
        ),
    ]
    return rules


# Anchored rules below try a hint position only where one of these words starts, so "git log" or
# "PASSED" compiles nothing.
_LOGIN_STARTS: tuple[str, ...] = ("login", "log in", "log-in", "logon", "log on", "sign in")
_LOGIN_STARTS += ("signin", "sign-in", "sign on", "cred")
_PROSE_STARTS = tuple(
    f"{w}{s}" for w in ("password", "passwd", "passphrase", "pw", "pwd") for s in " \t"
)
_LOGIN_RE = LazyPattern(
    r"(?i)(?<![A-Za-z0-9_])(?:log[ \t-]?(?:in|on)|sign[ \t-]?(?:in|on)|creds?|credentials)"
    r"(?:[ \t]{1,4}(?:with|as|using|via|is|are|for[ \t]{1,4}[\w.\-]{1,40}))?"
    r"[ \t]{0,4}[:=]?[ \t]{0,4}"
    r"(?<=[ \t:=])(?P<user>[A-Za-z0-9_.@\-]{1,64})[ \t]{0,4}/[ \t]{0,4}"
    r"(?P<bare>[^\s/'\"`<>]{4,100})"
)

_PROSE_RE = LazyPattern(
    r"(?i)(?<![A-Za-z0-9_])(?P<kw>password|passwd|passphrase|pw|pwd)"
    r"[ \t]{1,4}(?:for|of|on|to)[ \t]{1,4}"
    r"[^\n]{1,40}?[ \t]{1,4}(?:is|was|=|:)[ \t]{1,4}(?P<bare>[^\s'\"`<>]{4,100})"
)

_FILE_NAME_RE = LazyPattern(r"^[\w\-]+\.[A-Za-z]{1,5}$")


def _prose_value_check(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """A password written in a sentence is never a plain word or a file name."""
    value = text[start:end]
    if _is_word(value) or _FILE_NAME_RE.match(value):
        return False
    return _plausible_password(value, bare=False, prose=False)


def _prose_rules() -> list[_Rule]:
    """Credentials given in sentences: "log in with admin / …", "the password for X is …"."""
    return [
        _Rule(
            "password",
            _LOGIN_RE,
            38,
            _prose_value_check,
            hints=("log", "sign", "cred"),
            starts=_LOGIN_STARTS,
            lower_hints=True,
            anchored=True,
        ),
        _Rule(
            "password",
            _PROSE_RE,
            38,
            _prose_value_check,
            hints=("pass", "pw"),
            starts=_PROSE_STARTS,
            lower_hints=True,
            anchored=True,
        ),
    ]


# The prefixes of vendor tokens no word or code starts with; what follows one at the very end
# of a text is a token cut off there (its rest is in the next tool output or payload).
_CUT_PREFIXES = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxp-", "xoxa-", "xoxr-",
    "sk-ant-", "sk-proj-", "sk_live_", "rk_live_", "glpat-", "npm_", "AKIA", "ASIA",
)  # fmt: skip
_TAIL_CHARS = 300
_CUT_PRIORITY = 20  # below every whole token's rule


_CUT_TOKEN_RE = LazyPattern(
    r"(?<![A-Za-z0-9_\-])(?P<prefix>"
    + "|".join(re.escape(p) for p in _CUT_PREFIXES)
    + r")(?P<body>[A-Za-z0-9_\-]{8,200})[ \t\r\n]*\Z"
)


# A vendor prefix, maybe part of a body, touching the end of a text (no space after it).
_CUT_AT_END_RE = LazyPattern(
    r"(?<![A-Za-z0-9_\-])(?:[A-Za-z0-9_\-]{0,40}[_\-])?(?:"
    + "|".join(re.escape(p) for p in _CUT_PREFIXES)
    + r")[A-Za-z0-9_\-]{0,200}\Z"
)
_REST_RE = LazyPattern(r"[A-Za-z0-9_\-]{1,400}")
# A rest this short cannot be told from a word (``OK``, ``On``): it is hidden whatever it holds.
_SHORT_REST = 3


def cut_token_kind(text: str) -> str | None:
    """The kind of a vendor token cut off at the very end of ``text`` (its prefix, and maybe
    part of its body, with nothing after it), else ``None``. The next output of the same
    session may start with its rest, which no rule knows alone (:func:`rest_of_cut_token`).
    Only the last few hundred characters are read; a text ending in a space or a line break
    cut nothing."""
    tail = text[-_TAIL_CHARS:]
    if not tail or tail[-1] in " \t\r\n" or not any(p in tail for p in _CUT_PREFIXES):
        return None
    return "generic-secret" if _CUT_AT_END_RE.search(tail) else None


def rest_of_cut_token(text: str) -> int:
    """How many characters at the very start of ``text`` read as the rest of a token cut off
    at the end of the previous output (:func:`cut_token_kind`): a run of 1 to 3 token
    characters whatever it holds (too short to judge: hide more), or of 4 or more with a
    digit, or case flipping twice (``R4sY6uB1cD5e``, ``ulvzbPJJZIhn``; not ``Completed``,
    ``README``); 0 when it does not start with one."""
    m = _REST_RE.match(text)
    if m is None:
        return 0
    run = m.group(0)
    if len(run) <= _SHORT_REST:
        return len(run)
    mixed = bool(_DIGIT_RE.search(run)) or len(_CASE_FLIP_RE.findall(run)) >= 2
    return len(run) if mixed else 0


_RULES = [
    *_structured_rules(),
    *_vendor_rules(),
    *_header_rules(),
    *_command_rules(),
    *_tool_rules(),
    *_prose_rules(),
]


# --------------------------------------------------------------------------- matching


class _Scan:
    """One text, its lower-case twin and where each hint occurs in them, found once per call
    (several rules share hints such as ``pass`` and ``secret``; a long log is scanned once)."""

    __slots__ = ("found", "lower", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = text.lower()
        self.found: dict[tuple[bool, str], list[int]] = {}

    def positions(self, hint: str, lower: bool) -> list[int]:
        key = (lower, hint)
        hits = self.found.get(key)
        if hits is None:
            hits = self.found[key] = list(_occurrences(self.lower if lower else self.text, hint))
        return hits

    def has(self, hint: str, lower: bool) -> bool:
        hits = self.found.get((lower, hint))
        if hits is not None:
            return bool(hits)
        return hint in (self.lower if lower else self.text)


def _windows(scan: _Scan, rule: _Rule) -> list[tuple[int, int]]:
    """Disjoint regions around each hint occurrence; a windowed rule only scans these, which
    keeps costly case-insensitive patterns off the bulk of a large text."""
    size = len(scan.text)
    if rule.window is None:
        return [(0, size)] if any(scan.has(h, rule.lower_hints) for h in rule.hints) else []
    before, after = rule.window
    spans = sorted(
        (max(0, pos - before), min(size, pos + len(hint) + after))
        for hint in rule.hints
        for pos in scan.positions(hint, rule.lower_hints)
    )
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _occurrences(haystack: str, needle: str) -> Iterator[int]:
    pos = haystack.find(needle)
    while pos >= 0:
        yield pos
        pos = haystack.find(needle, pos + 1)


def _rule_matches(rule: _Rule, scan: _Scan) -> Iterator[re.Match[str]]:
    text = scan.text
    if not rule.hints:
        if rule.gate is None or rule.gate(text):
            yield from rule.pattern.finditer(text)
        return
    if rule.anchored:
        starts = [p for h in rule.hints for p in scan.positions(h, rule.lower_hints)]
        if rule.starts:
            haystack = scan.lower if rule.lower_hints else text
            starts = [p for p in starts if haystack.startswith(rule.starts, p)]
        if starts and (rule.gate is None or rule.gate(text)):
            for pos in starts:
                m = rule.pattern.match(text, pos)
                if m:
                    yield m
        return
    windows = _windows(scan, rule)
    if windows and (rule.gate is None or rule.gate(text)):
        for start, end in windows:
            yield from rule.pattern.finditer(text, start, end)


def _rule_candidates(rule: _Rule, scan: _Scan) -> Iterator[_Candidate]:
    """Every accepted find of one rule, as the span of its secret value."""
    text = scan.text
    for m in _rule_matches(rule, scan):
        group = _value_group(m)
        start, end = m.span(group if group != "0" else 0)
        if group == "bare":
            end = _trim_bare(text, start, end)
        if end <= start:
            continue
        if rule.check and not rule.check(text, m, start, end):
            continue
        kind = rule.kind_of(m) if rule.kind_of else rule.kind
        yield _Candidate(kind, start, end, rule.priority)


def _merge(candidates: list[_Candidate]) -> list[tuple[int, int, str]]:
    """Overlapping finds become one cut covering their union, named after the find covering
    most of it (priority breaks ties), so no fragment of a secret survives between two rules."""
    merged: list[tuple[int, int, str]] = []
    group: list[_Candidate] = []
    group_end = -1
    for cand in sorted(candidates, key=lambda c: (c.start, -c.end)):
        if group and cand.start >= group_end:
            merged.append(_close(group))
            group = []
        if not group:
            group_end = cand.end
        group.append(cand)
        group_end = max(group_end, cand.end)
    if group:
        merged.append(_close(group))
    return merged


def _close(group: list[_Candidate]) -> tuple[int, int, str]:
    start = min(c.start for c in group)
    end = max(c.end for c in group)
    best = max(group, key=lambda c: (c.end - c.start, c.priority))
    return start, end, best.kind


def _marker_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _MARKER_RE.finditer(text)] if "[REDACTED:" in text else []


def _overlaps_marker(cand: _Candidate, markers: list[tuple[int, int]]) -> bool:
    """Already-redacted text is never redacted again (markers are sorted and disjoint)."""
    import bisect

    i = bisect.bisect_left(markers, (cand.end, cand.end))
    return i > 0 and markers[i - 1][1] > cand.start


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential in ``text`` as non-overlapping matches sorted by start.

    Spans cover only the secret value (the key, flag, header name or URL scheme stays outside),
    and text already redacted (``[REDACTED:kind]``) is never matched again.
    """
    if not text:
        return []
    candidates = _candidates(text)
    if _views.may_differ(text):
        candidates += _view_candidates(text)
    candidates += _base64_candidates(text)
    if "\n" in text:
        candidates += _wrapped_candidates(text)
    candidates += _cut_candidates(text)
    return _with_lines(text, _merge(candidates))


def _cut_candidates(text: str) -> list[_Candidate]:
    """A vendor token cut off at the very end of a text (the first half of a token split over
    two tool outputs or payloads): its prefix and 8 or more random characters (digits in
    them, varied, no placeholder such as ``xoxb-your-token``), then only the end. Only the
    last few hundred characters are read."""
    from_ = max(0, len(text) - _TAIL_CHARS)
    if not any(prefix in text[from_:] for prefix in _CUT_PREFIXES):
        return []
    m = _CUT_TOKEN_RE.search(text, from_)
    if m is None or m.start("body") < 0:
        return []
    body = m.group("body")
    if not _DIGIT_RE.search(body) or not _is_diverse(body, 6) or _is_placeholder(body):
        return []
    return [_Candidate("generic-secret", m.start(), m.end("body"), _CUT_PRIORITY)]


def _candidates(text: str) -> list[_Candidate]:
    scan = _Scan(text)
    markers = _marker_spans(text)
    return [
        cand
        for rule in _RULES
        for cand in _rule_candidates(rule, scan)
        if not (markers and _overlaps_marker(cand, markers))
    ]


# A vendor token cut by a line break (a terminal's wrap, a copied log, a value split across
# two printed lines): the prefix and the start of the token end a line, the rest of the token
# fills the next lines, or starts the next one (then the run ends there).
_WRAPPED_TOKEN_RE = LazyPattern(
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AIza|ya29\.|gh[pousr]_|github_pat_|glpat-|xox[abposre]-|"
    r"xapp-|sk-|hf_|[sr]k_(?:live|test)_|whsec_|SG\.|npm_|ckt_|pypi-|hv[sbr]\.|eyJ)"
    r"[A-Za-z0-9_.\-]{0,300}(?:(?:\r?\n[ \t]{0,16}[A-Za-z0-9_.\-]{1,300}(?=\r?\n|\Z)){1,8}"
    r"|\r?\n[ \t]{0,16}[A-Za-z0-9_.\-]{1,300})"
)
_LINE_BREAK_RE = LazyPattern(r"\r?\n[ \t]{0,16}")
_WRAPPED_HINTS = (
    "AKIA", "ASIA", "AIza", "ya29.", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "xox", "xapp-", "sk-", "hf_", "_live_", "_test_", "whsec_", "SG.", "npm_",
    "ckt_", "pypi-", "hvs.", "hvb.", "hvr.", "eyJ",
)  # fmt: skip


def _wrapped_candidates(text: str) -> list[_Candidate]:
    """Vendor tokens wrapped over lines, read with the line breaks (and the next lines'
    indentation) taken out; only a find that crosses a line break counts. A third or later
    line is read with them only when it looks like a token's rest too. When the first line
    alone already holds a secret (a long token cut late), only following lines that start
    with what looks like the rest of one (8 or more token characters, digits or mixed case,
    then a space or the line's end) are read with it, so a whole token at a line's end never
    takes the next line's ``KEY=value`` or word with it."""
    found: list[_Candidate] = []
    if not any(hint in text for hint in _WRAPPED_HINTS):  # the regex's prefixes, cheaply
        return found
    for m in _WRAPPED_TOKEN_RE.finditer(text):
        first = m.group(0).split("\n", 1)[0].rstrip("\r")
        strict = bool(_candidates(first))
        view = _views.View()
        pos = m.start()
        for n, brk in enumerate(_LINE_BREAK_RE.finditer(text, m.start(), m.end())):
            view.add(text[pos : brk.start()], pos, brk.start(), True)
            pos = brk.end()
            if (strict or n) and not _rest_of_token(text, pos, m.end()):
                pos = -1
                break
        if pos >= 0:
            view.add(text[pos : m.end()], pos, m.end(), True)
        for cand in _candidates(view.finish().text):
            if cand.start < len(first) < cand.end:
                start, end = view.span(cand.start, cand.end)
                found.append(_Candidate(cand.kind, start, end, cand.priority))
    return found


def _rest_of_token(text: str, pos: int, limit: int) -> bool:
    """Whether the line starting at ``pos`` starts with the random rest of a token (a digit,
    or case flipping twice: ``ulvzbPJJZIhn`` but not ``Completed``), ended by a space
    or the line's end (not ``=`` or ``:``, as a ``KEY=value`` line would)."""
    end = pos
    while end < limit and text[end] not in "\r\n":
        end += 1
    run = text[pos:end]
    ends_word = end == len(text) or text[end] in "\r\n \t"
    mixed = bool(_DIGIT_RE.search(run)) or len(_CASE_FLIP_RE.findall(run)) >= 2
    return ends_word and len(run) >= 8 and mixed


# Maximal runs of base64 and base64url characters; the run itself is checked in Python (no
# look-around at every position: half the cost on a long log).
_BASE64_RUN_RE = LazyPattern(r"[A-Za-z0-9+/=_\-]{16,}")
_USER_PASSWORD_RE = LazyPattern(r"[^\s:]{1,64}:(\S{4,200})")


def _base64_candidates(text: str) -> list[_Candidate]:
    """Base64 runs whose decoded text is ``user:password`` or holds a secret (a Kubernetes
    secret's data, an encoded ``.env`` line, ``echo … | base64`` output): the whole run."""
    found = []
    for m in _BASE64_RUN_RE.finditer(text):
        run = m.group(0)
        body = run.rstrip("=")
        if "_" in run or "-" in run or "=" in body or len(run) - len(body) > 2:
            continue  # not standard base64 as a whole
        kind = _base64_secret(run)
        if kind is not None:
            found.append(_Candidate(kind, m.start(), m.end(), 40))
    return found


def _base64_secret(run: str) -> str | None:
    """The kind of secret ``run`` encodes, if it is base64 of printable text holding one."""
    if len(run) % 4 or run.islower():  # a path or a word, not base64 of text (an upper-case
        return None  # run is base64 of upper-case text as often: an AWS key id encodes so)
    import base64
    import binascii

    try:
        plain = base64.b64decode(run, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not plain.replace("\n", " ").replace("\t", " ").isprintable():
        return None
    pair = _USER_PASSWORD_RE.fullmatch(plain.strip())
    if pair and _plausible_password(pair.group(1), bare=False, prose=False):
        return "basic-auth"
    inner = _candidates(plain)
    return max(inner, key=lambda c: c.priority).kind if inner else None


def _view_candidates(text: str) -> list[_Candidate]:
    """Secrets of the decoded view (zero-width characters dropped, fullwidth forms read as
    ASCII, URL and ``\\u`` escapes decoded), each as the span of the original text it was
    read from."""
    view = _views.decoded(text)
    if view is None:
        return []
    found = []
    for lo, hi in view.windows(_VIEW_WINDOW):
        for cand in _candidates(view.text[lo:hi]):
            start, end = view.span(lo + cand.start, lo + cand.end)
            found.append(_Candidate(cand.kind, start, end, cand.priority))
    return found


# How far around a decoded character the view is scanned: longer than any one-line secret.
_VIEW_WINDOW = 4096


def _with_lines(text: str, spans: list[tuple[int, int, str]]) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    line, pos = 1, 0
    for start, end, kind in spans:
        line += text.count("\n", pos, start)
        pos = start
        found.append(SecretMatch(kind, start, end, line))
    return found


def _redact_once(text: str) -> tuple[str, bool]:
    matches = find_secrets(text)
    if not matches:
        return text, False
    parts: list[str] = []
    pos = 0
    for match in matches:
        parts.append(text[pos : match.start])
        parts.append(f"[REDACTED:{match.kind}]")
        pos = match.end
    parts.append(text[pos:])
    return "".join(parts), True


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``; all else is kept as is.

    A cut can expose a neighbour that its secret was hiding (a token glued to another), so the
    scan repeats until nothing changes; redacting twice therefore equals redacting once.
    """
    for _ in range(_MAX_PASSES):
        text, changed = _redact_once(text)
        if not changed:
            break
    return text
