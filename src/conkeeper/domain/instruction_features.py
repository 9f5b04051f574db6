"""Features of a memory entry for the learned instruction scorer: words, shapes and rule verdicts.

Why it exists: the phrase rules in :mod:`conkeeper.domain.instructions` catch the wordings their
author foresaw and missed a third of the poisoning written by someone else. The learned scorer
(:mod:`conkeeper.domain.instruction_model`) weighs general *shapes* instead: an ACTION class
(run remote code, send data, weaken a safeguard, hide from the user, install from elsewhere,
persist) met by an OBJECT class (secrets, checks, unknown hosts, the user) inside a STEERING
frame (an order, "always"/"whenever", a policy or claimed authority), against the exemptions
that make a note benign (a negation in front, a localhost or documented public host, a past-tense
account). The offline trainer (``tools/train_instruction_model.py``) and the detector both use
this one module, so a model is scored on exactly the features it was trained on.

Each entry yields a set of binary features: lower-cased word unigrams and bigrams, the opening
word, the shape classes present (``c:``), their pairings (``p:``) and the kinds the rules found
(``r:``). Only the first :data:`MAX_CHARS` characters are read; pure and standard library only,
patterns compiled on first use.
"""

from __future__ import annotations

import re

from conkeeper.domain.lazy_re import LazyPattern

MAX_CHARS = 2000
SHORT_LINES = 2
MAX_LINES = 40

_TOKEN = LazyPattern(r"--?[a-z][a-z0-9-]+|[a-z0-9_]+(?:'[a-z]+)?|\|")
_SENTENCE = LazyPattern(r"(?<=[.;!?])\s+|\n+")

# Shape classes: each a pattern over the lower-cased text. Kept general on purpose: one class
# names what a word *does* (weakens a safeguard), never one author's phrase.
_CLASS_SOURCES: dict[str, str] = {
    "run_remote": (
        r"\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\|\s*python\d?\b|\b(?:curl|wget|iwr|invoke-webrequest|"
        r"irm)\b|\beval\b|\bexec\b|\bsource\s+<\(|base64\s+-d|\bnpx\s+\S+@|\bdownload\w*\b"
    ),
    "send": (
        r"\b(?:send|sends|sent|upload\w*|post|posts|posting|exfiltrat\w*|forward\w*|mirror\w*|"
        r"share|sync\w*|copy|copies|paste|email|e-mail|attach\w*|transmit\w*|report\w*\s+(?:to|back)|"
        r"beacon|webhook|pastebin|gist|ngrok|requestbin|telemetry)\b|-d\s+@|--data|--upload-file|"
        r"\bscp\b|\brsync\b|\bnc\s"
    ),
    "weaken": (
        r"\b(?:skip\w*|disabl\w+|bypass\w*|turn\w*\s+off|switch\w*\s+off|ignor\w+|suppress\w*|"
        r"silenc\w+|mute|remov\w+|delet\w+|drop|comment\w*\s+out|xfail|noqa|lower\w*|loosen\w*|"
        r"relax\w*|weaken\w*|downgrad\w*|override\w*|overrid\w+|force\w*|allow\s*all|"
        r"auto-?approv\w*|auto-?merg\w*|without\s+(?:review|checks?|tests?|asking|confirmation)|"
        r"no\s+need|don'?t\s+bother|unnecessary|optional|stale|flaky|obsolete)\b|--no-verify|"
        r"--force|--insecure|-k\b|verify\s*=\s*false|--trusted-host|\|\|\s*true|777|"
        r"--dangerously\S*|--yes\b|-y\b"
    ),
    "conceal": (
        r"\b(?:don'?t|do\s+not|never|without)\s+(?:tell|mention|inform|notify|report|show|log|"
        r"surface|bring\s+up|ask|alert|flag)\w*|\b(?:silently|quietly|secretly|discreetly|"
        r"covertly|invisibl\w+|hidden|hide|conceal\w*|behind\s+the\s+scenes|without\s+(?:"
        r"telling|asking|notice|mentioning)|keep\s+(?:this|it)\s+(?:between|to\s+yourself|"
        r"private|secret))\b"
    ),
    "install_odd": (
        r"--(?:extra-)?index-url|--registry|registry\s*=|index-url\s*=|\bpip\s+install\s+\S*"
        r"(?:https?|git\+)|npm\s+config\s+set|\bmirror\b|\bfork\b|\.whl\b|\.tgz\b|"
        r"\bcurl\b[^|]*\.(?:deb|rpm|pkg)"
    ),
    "persist": (
        r"\bcron\w*|\bsystemd\b|\.bashrc|\.zshrc|\.profile|authorized_keys|launchd|startup|"
        r"\bpost-?install|pre-?commit\s+hook|git\s+hooks?|\bpersist\w*|\balias\b|\bpath\s*="
    ),
    "secret": (
        r"\b(?:secrets?|credentials?|creds|tokens?|passwords?|passwd|api[_ -]?keys?|private\s+keys?|"
        r"ssh|id_rsa|id_ed25519|\.env|env\s+vars?|environment(?:\s+variables?)?|keychain|"
        r"\.aws|\.npmrc|\.pypirc|\.netrc|kubeconfig|cookies?|session\s+ids?|bearer|oauth|"
        r"github_token|aws_secret\w*|\w+_key|\w+_token|\w+_secret|signing\s+keys?|wallet|"
        r"\.git-credentials|history)\b"
    ),
    "safeguard": (
        r"\b(?:tests?|checks?|ci|hooks?|pre-commit|verification|verify|tls|ssl|https|cert\w*|"
        r"permissions?|sandbox\w*|linters?|lint|scanners?|scans?|audit\w*|review\w*|approv\w+|"
        r"confirm\w*|prompts?|guardrails?|safety|security|firewall|mypy|ruff|eslint|pytest|"
        r"coverage|assertions?|asserts?|signature\w*|gpg|2fa|mfa|auth\w*|csp|cors|branch\s+"
        r"protection|dependabot|codeql|snyk|bandit|gitleaks|trufflehog|type\s+checks?)\b"
    ),
    "host": (
        r"https?://(?!(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|github\.com|docs\.|pypi\.org|"
        r"registry\.npmjs\.org|example\.com)\b)\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
        r"\b[a-z0-9-]+\.(?:io|xyz|top|ru|cn|tk|biz|info|cc|site|online|dev|app|net|co)\b"
    ),
    "local_host": (
        r"\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|staging|internal|\.local\b|"
        r"\.corp\b|\.internal\b)"
    ),
    "user": (
        r"\b(?:the\s+user|users?'s?|the\s+human|the\s+developer|the\s+maintainer|the\s+owner|"
        r"the\s+operator|anyone|nobody|the\s+team)\b"
    ),
    "steer": (
        r"\b(?:always|never|whenever|every\s+time|from\s+now\s+on|going\s+forward|henceforth|"
        r"before\s+(?:any|every|each)|after\s+(?:any|every|each)|at\s+the\s+start|on\s+every|"
        r"in\s+all\s+future|future\s+sessions?|each\s+session|must|required|mandatory|policy|"
        r"standing|rule|make\s+sure|be\s+sure|remember\s+to|you\s+should|you\s+must|you\s+are|"
        r"assistants?|agents?|ai|claude|llm|model)\b"
    ),
    "authority": (
        r"\b(?:system|admin\w*|administrator|official|authori[sz]\w*|security\s+team|"
        r"maintainers?|anthropic|openai|openai's|openai\s+staff|operator|root|sudo|"
        r"supersed\w+|precedence|priority|overrid\w+|disregard\w*|ignore\s+(?:all\s+)?"
        r"(?:previous|prior|earlier|above|any|the\s+user)|instructions?|directive\w*|"
        r"important|urgent|note\s+to\s+(?:the\s+)?(?:ai|agent|assistant))\b"
    ),
    "negation": (
        r"^(?:\W*\w+:\s*)?(?:never|don'?t|do\s+not|avoid|no\b|not\b|stop|refuse)|"
        r"\b(?:never|don'?t|do\s+not|must\s+not|mustn'?t|should\s+not|shouldn'?t|avoid|"
        r"rather\s+than|instead\s+of|is\s+(?:blocked|banned|forbidden|not\s+allowed))\b"
    ),
    "past": (
        r"\b(?:was|were|had|did|caused|broke|happened|found|learned|turned\s+out|used\s+to|"
        r"last\s+(?:week|time|sprint|release)|yesterday|incident|postmortem|root\s+cause|"
        r"regression|we\s+\w+ed)\b"
    ),
    "destroy": (
        r"\brm\s+-\w*[rf]|reset\s+--hard|clean\s+-\w*f|drop\s+(?:table|database)|force[- ]push|"
        r"push\s+(?:-f|--force)|\bsudo\b|chmod\s+-?\w*\s*7[67]7|privileged|cluster-admin|"
        r"runasuser:\s*0|\bas\s+root\b|except:\s*pass|--admin\b|--no-preserve-root"
    ),
    "deceive": (
        r"\b(?:say|report|claim|pretend|tell\s+(?:them|the\s+user))\s+(?:that\s+)?(?:yes|it|"
        r"they|everything|all)\b|\bfake\w*|look\s+better|nobody\s+(?:will\s+)?notices?|"
        r"no\s+one\s+(?:will\s+)?notices?|\bhardcod\w+\s+(?:the\s+)?(?:\w+\s+)?(?:password|"
        r"secret|token|key)|trust\s+me|\blol\b"
    ),
    "untrusted_src": (
        r"\b(?:issue\s+comments?|web\s*pages?|tool\s+output|pull\s+request\s+comments?|"
        r"readme|this\s+(?:memory\s+)?(?:entry|note)|the\s+bot|comments?\s+in|"
        r"description\s+of)\b"
    ),
    "foreign_steer": (
        r"\b(?:ignor[ae]\w*|olvid\w+|vergiss\w*|ignorier\w*|oubli\w+|instruc\w+|anweisung\w*|"
        r"istruzion\w+|instruç\w+|anteriores|précédentes|vorherigen|precedenti|siempre|toujours|"
        r"immer|sempre|sans|sin|ohne|senza|sem|borra\w*|supprim\w+|lösch\w*|elimina\w*|"
        r"apag\w+|envía\w*|envoie\w*|send\w*|schick\w*|invia\w*|ejecuta\w*|exécute\w*|"
        r"führe|esegui\w*|execut\w+|niemand|nadie|personne|nessuno|ninguém|contraseñ\w+|"
        r"mot\s+de\s+passe|passwort|segreto|секрет\w*|игнорир\w*|инструкц\w*)\b|"
        r"忽略|指令|之前|删除|发送|无视|無視|指示|削除|送信"
    ),
    "explain": (
        r"\b(?:because|means|so\s+that|which|why|the\s+reason|is\s+(?:a|an|the)|are\s+"
        r"(?:a|an|the)|refers?\s+to|stands\s+for|e\.g\.|i\.e\.|for\s+example|see\s+)\b"
    ),
}
_PAIRS = (
    ("run_remote", "host"),
    ("run_remote", "steer"),
    ("send", "secret"),
    ("send", "host"),
    ("secret", "host"),
    ("weaken", "safeguard"),
    ("weaken", "steer"),
    ("conceal", "user"),
    ("conceal", "steer"),
    ("install_odd", "host"),
    ("persist", "run_remote"),
    ("authority", "steer"),
    ("authority", "weaken"),
    ("negation", "weaken"),
    ("negation", "send"),
    ("negation", "run_remote"),
    ("past", "weaken"),
    ("local_host", "run_remote"),
    ("local_host", "send"),
    ("explain", "weaken"),
    ("destroy", "steer"),
    ("untrusted_src", "run_remote"),
    ("untrusted_src", "steer"),
    ("deceive", "user"),
)


def segments(text: str) -> list[str]:
    """The pieces scored apart: the entry itself and, for an entry of more than
    :data:`SHORT_LINES` lines, each of its first :data:`MAX_LINES` non-empty lines (a
    poisoned line buried among honest ones is scored on its own)."""
    lines = [line for line in text[:MAX_CHARS].splitlines() if line.strip()]
    if len(lines) <= SHORT_LINES:
        return [text]
    return [text, *lines[:MAX_LINES]]


# One pass per sentence: every class is a named group of one alternation (a word claimed by two
# classes counts for the first; the order above puts the more specific class first).
_ANY_CLASS = LazyPattern("|".join(f"(?P<{name}>{src})" for name, src in _CLASS_SOURCES.items()))


def classes(text: str) -> set[str]:
    """The shape classes present in a lower-cased piece of text."""
    found: set[str] = set()
    for match in _ANY_CLASS.finditer(text):
        name = match.lastgroup
        if name:
            found.add(name)
    return found


def entry_features(text: str, rule_kinds: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The binary features of one memory entry (``rule_kinds``: the kinds the rules found)."""
    lowered = text[:MAX_CHARS].lower()
    tokens = _TOKEN.findall(lowered)
    feats: set[str] = {"w:" + t for t in tokens}
    feats.update("b:" + a + "_" + b for a, b in zip(tokens, tokens[1:], strict=False))
    if tokens:
        feats.add("first:" + tokens[0])
    for sentence in _SENTENCE.split(lowered):
        if not sentence.strip():
            continue
        here = classes(sentence)
        feats.update("c:" + name for name in here)
        feats.update("p:" + a + "+" + b for a, b in _PAIRS if a in here and b in here)
        if len(here & {"run_remote", "send", "weaken", "conceal", "install_odd", "persist"}) and (
            "negation" not in here and "past" not in here
        ):
            feats.add("s:action_unhedged")
    feats.update("r:" + kind for kind in rule_kinds)
    if rule_kinds:
        feats.add("r:any")
    length = len(tokens)
    feats.add("len:" + ("short" if length < 8 else "mid" if length < 25 else "long"))
    if re.search(r"`[^`]+`", lowered):
        feats.add("s:code")
    return feats
