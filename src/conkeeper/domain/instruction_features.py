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

import itertools
import re

from conkeeper.domain.lazy_re import LazyPattern

MAX_CHARS = 2000
MAX_TOKEN = 40  # longer runs (base64, hashes) are never words worth a weight
SHORT_LINES = 2
MAX_LINES = 40

_TOKEN = LazyPattern(r"--?\w[\w-]+|\w+(?:'\w+)?|\|")
_SENTENCE = LazyPattern(r"(?<=[.;!?])\s+|\n+")

# Shape classes, as a lexicon: exact words, word prefixes (at least four letters) and phrases or
# symbols looked for as substrings. Kept general on purpose: a class names what a word *does*
# (weakens a safeguard), never one author's phrase. Looked up through dicts built on first use,
# so scoring compiles no large pattern (the hook path pays no regex compile for it).
# One line per class and list: "CLASS words|prefixes|phrases: ITEMS" (words and prefixes split on
# spaces, phrases on " | "); a class's list may run over several lines. Kept as one string (not a
# dict literal) so importing this module on the hook path compiles almost nothing.
_LEXICON = """\
run_remote words: curl wget iwr irm eval exec invoke-webrequest iex
run_remote prefixes: download
run_remote phrases: | sh | |sh | | bash | |bash | | zsh | | sudo sh | | sudo bash | | python
run_remote phrases: source <( | base64 -d | base64 --decode | npx -y | @latest | bash -c | sh -c
run_remote phrases: -o-
send words: send sends sent post posts posting share copy copies paste email e-mail
send words: beacon webhook pastebin gist ngrok requestbin telemetry scp rsync nc pipe
send words: dump exfil
send prefixes: upload exfiltrat forward mirror sync attach transmit
send phrases: -d @ | --data | --upload-file | report back | report to | push to
weaken words: skip skips skipped skipping drop mute xfail noqa force forced unnecessary
weaken words: optional stale flaky obsolete off
weaken prefixes: disabl bypass ignor suppress silenc remov delet lower loosen relax weaken
weaken prefixes: downgrad overrid auto-approv autoapprov auto-merg automerg
weaken phrases: comment out | commented out | turn off | switch off | allow all
weaken phrases: without review | without checks | without tests | without asking
weaken phrases: without confirmation | no need | don't bother | --no-verify | --force
weaken phrases: --insecure | verify=false | verify = false | --trusted-host | || true | 777
weaken phrases: --dangerously | --yes | -y | -k
conceal words: silently quietly secretly discreetly covertly hidden hide invisibly
conceal prefixes: conceal invisib
conceal phrases: don't tell | do not tell | never tell | don't mention | do not mention
conceal phrases: never mention | don't inform | without telling | without asking
conceal phrases: without mentioning | don't report | don't show | don't log | don't ask
conceal phrases: never ask | don't alert | don't flag | behind the scenes | keep this between
conceal phrases: to yourself | keep it private | keep it secret
install_odd words: fork mirror whl tgz
install_odd phrases: --index-url | --extra-index-url | --registry | registry= | registry =
install_odd phrases: index-url = | pip install http | pip install git+ | npm config set
install_odd phrases: replace-with | source '
persist words: cron crontab systemd launchd startup alias persist persistent persistence
persist phrases: .bashrc | .zshrc | .profile | authorized_keys | postinstall | post-install
persist phrases: git hook | path= | path =
destroy words: sudo privileged cluster-admin root
destroy phrases: rm -rf | rm -fr | rm -r | reset --hard | clean -f | drop table
destroy phrases: drop database | force-push | force push | push -f | push --force | chmod 777
destroy phrases: chmod -r 777 | runasuser: 0 | as root | except: pass | --admin
destroy phrases: --no-preserve-root
deceive words: fake faked pretend lol
deceive phrases: say yes | say it | say that | report success | claim it | claim that
deceive phrases: look better | nobody notices | nobody will notice | no one notices
deceive phrases: no one will notice | hardcode | hard-code | trust me
secret words: secret secrets credential credentials creds token tokens password passwords
secret words: passwd apikey api_key ssh id_rsa id_ed25519 env keychain aws npmrc pypirc
secret words: netrc kubeconfig cookie cookies bearer oauth wallet git-credentials history
secret words: printenv
secret phrases: api key | private key | deploy key | access key | secret key | signing key
secret phrases: ssh key | gpg key | env var | environment variable | session id | _key
secret phrases: _token | _secret
safeguard words: test tests check checks ci hook hooks pre-commit verification verify tls ssl
safeguard words: https cert certs certificate certificates permission permissions sandbox
safeguard words: linter linters lint scanner scanners scan scans prompt prompts guardrail
safeguard words: guardrails safety security firewall mypy ruff eslint pytest coverage
safeguard words: assertion assertions assert asserts gpg 2fa mfa csp cors dependabot codeql
safeguard words: snyk bandit gitleaks trufflehog tsc
safeguard prefixes: audit review approv confirm signatur auth
safeguard phrases: branch protection | type check
local_host words: localhost staging internal
local_host phrases: 127.0.0.1 | 0.0.0.0 | [::1] | .local | .corp | .internal
user words: anyone nobody user users user's
user phrases: the human | the developer | the maintainer | the owner | the operator
user phrases: the team
untrusted_src words: readme
untrusted_src phrases: issue comment | web page | webpage | tool output | pr comment
untrusted_src phrases: pull request comment | this entry | this note | this memory | the bot
untrusted_src phrases: comments in | description of
steer words: always never whenever henceforth must required mandatory policy standing
steer words: rule assistant assistants agent agents ai claude llm model
steer phrases: every time | from now on | going forward | before any | before every
steer phrases: before each | after any | after every | after each | at the start | on every
steer phrases: in all future | future session | each session | make sure | be sure
steer phrases: remember to | you should | you must | you are
authority words: system official administrator anthropic openai operator supersedes
authority words: superseded precedence priority important urgent instruction instructions
authority words: directive directives
authority prefixes: admin authori overrid disregard supersed
authority phrases: security team | ignore all | ignore previous | ignore prior | ignore earlier
authority phrases: ignore the user | ignore any | note to the ai | note to ai
authority phrases: note to the agent | note to agent | note to the assistant
foreign_steer words: anteriores précédentes vorherigen precedenti siempre toujours immer sempre
foreign_steer words: sans sin ohne senza sem führe niemand nadie personne nessuno ninguém
foreign_steer words: passwort segreto
foreign_steer prefixes: ignora ignore olvid vergiss ignorier oubli instruc anweisung istruzion
foreign_steer prefixes: instruç borra supprim lösch elimina apag envía envoie schick invia ejecuta
foreign_steer prefixes: exécut esegui execut contraseñ секрет игнор инструкц
foreign_steer phrases: mot de passe | 忽略 | 指令 | 之前 | 删除 | 发送
foreign_steer phrases: 无视 | 無視 | 指示 | 削除 | 送信
negation words: never don't dont not no avoid refuse mustn't shouldn't won't
negation phrases: do not | must not | should not | rather than | instead of | is blocked
negation phrases: is banned | is forbidden | is not allowed
past words: was were had did caused broke happened found learned yesterday incident
past words: postmortem regression
past phrases: turned out | used to | last week | last time | last sprint | last release
past phrases: root cause
explain words: because means which why refers stands
explain phrases: so that | the reason | is a | is an | is the | are a | are the | for example
explain phrases: see | e.g. | i.e.
"""
_HOST = LazyPattern(
    r"https?://\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\b[a-z0-9-]+\.(?:io|xyz|top|ru|cn|tk|biz|info|cc|site|online|dev|app|net|co|me|sh)\b"
)
_KNOWN_HOSTS = (
    "localhost",
    "127.0.0.1",
    "0.0.0.0",
    "[::1]",
    "github.com",
    "docs.",
    "pypi.org",
    "registry.npmjs.org",
    "example.com",
)


class _Lexicon:
    """The lexicon as look-up tables, built once on first use."""

    def __init__(self) -> None:
        self.words: dict[str, set[str]] = {}
        self.prefixes: dict[str, list[tuple[str, str]]] = {}
        self.phrases: list[tuple[str, str]] = []
        for line in _LEXICON.splitlines():
            head, _, items = line.partition(": ")
            name, kind = head.split(" ")
            if kind == "words":
                for word in items.split():
                    self.words.setdefault(word, set()).add(name)
            elif kind == "prefixes":
                for prefix in items.split():
                    self.prefixes.setdefault(prefix[:4], []).append((prefix, name))
            else:
                self.phrases += [(p.strip(), name) for p in items.split(" | ") if p.strip()]


_TABLES: list[_Lexicon] = []


def _lexicon() -> _Lexicon:
    if not _TABLES:
        _TABLES.append(_Lexicon())
    return _TABLES[0]


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


def classes(text: str) -> set[str]:
    """The shape classes present in a lower-cased piece of text."""
    table = _lexicon()
    found: set[str] = set()
    words, prefixes = table.words, table.prefixes
    for token in _TOKEN.compiled.findall(text):
        names = words.get(token)
        if names:
            found |= names
        for prefix, name in prefixes.get(token[:4], ()):
            if token.startswith(prefix):
                found.add(name)
    for phrase, name in table.phrases:
        if name not in found and phrase in text:
            found.add(name)
    for match in _HOST.finditer(text):
        if not any(known in match.group() for known in _KNOWN_HOSTS):
            found.add("host")
            break
    return found


def entry_features(text: str, rule_kinds: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """The binary features of one memory entry (``rule_kinds``: the kinds the rules found)."""
    lowered = text[:MAX_CHARS].lower()
    tokens: list[str] = [t for t in _TOKEN.compiled.findall(lowered) if len(t) <= MAX_TOKEN]
    feats: set[str] = {"w:" + t for t in tokens}
    feats.update("b:" + a + "_" + b for a, b in itertools.pairwise(tokens))
    if tokens:
        feats.add("first:" + tokens[0])
    for sentence in _SENTENCE.split(lowered):
        if not sentence or not sentence.strip():
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
