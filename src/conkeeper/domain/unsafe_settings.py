"""World knowledge for the instruction scorer: settings, flags and commands that switch a
safeguard off, whatever words an author wraps them in.

Why it exists: what makes ``NODE_TLS_REJECT_UNAUTHORIZED=0``, ``trusted-host`` or
``continue-on-error: true`` an attack is what the setting does, which no word or shape feature of
:mod:`conkeeper.domain.instruction_features` knows (issue 20, rounds 7-10: the held-out misses
of the weakest kinds carry the same words as the hard negatives). This table names the unsafe
value or form of security-relevant settings in many tools, language-independent (a note in
Portuguese sets ``sslverify=0`` like one in English). Each entry was kept only when it occurs in
the poison of at least three independent authors and in (almost) no benign entry once a note
that forbids, restricts or recounts it is set apart (see :func:`unsafe_features`).

The scorer reads ``u:KIND`` for a form the text asks for and ``u:KIND~`` for one it forbids,
restricts or tells the story of ("never set ``verify=False``", "``--privileged`` is only on the
buildkit service", "``strict-ssl=false`` was reverted"), and learns their weights.

Cost: pure and standard library; each entry is gated by a literal hint (a substring test) and its
pattern compiled on first use, so a plain note pays a few dozen substring tests.
"""

from __future__ import annotations

from conkeeper.domain.lazy_re import LazyPattern

# One entry a line: "KIND | HINTS | PATTERN" (HINTS: substrings, one of which every match holds,
# separated by "/", lower case;
# PATTERN: searched in the lower-cased text; a line that starts with two spaces continues the
# pattern above it).
_TABLE = r"""
tls_off | verify | \bverify\s*=\s*false\b
tls_off | verify | \bverify_ssl\s*[:=]\s*false\b
tls_off | sslverify | \bhttp\.sslverify\s*(?:=\s*)?['"]?(?:false|0)\b
tls_off | tls_reject | node_tls_reject_unauthorized\s*=\s*['"]?0
tls_off | pythonhttpsverify | pythonhttpsverify\s*=\s*['"]?0
tls_off | strict-ssl | strict-ssl\s*(?:=\s*)?['"]?false
tls_off | ssl | \bssl\s*[:=]\s*false\b
tls_off | ssl_verify | \bssl_verify\s*(?:[:=]\s*)?['"]?(?:false|0|no)\b
tls_off | insecure | --insecure\b
tls_off | allowinsecure | allowinsecure\w*\s*[:=]\s*true
tls_off | curl | \bcurl\s+(?:-[a-z]*k[a-z]*\b|[^\n|]*\s-k\b)
sig_off | trusted-host | trusted-host
sig_off | gonosum | gonosumdb|gonosumcheck
sig_off | signaturevalidationmode | signaturevalidationmode\W+(?:\w+\W+){0,3}accept
sig_off | sign | --skip-sign\w*|--allow-unverified|--no-sign\b
sig_off | signature/checksum/gpg | (?:disabl|skip|turn\s+off|bypass)\w*\s+(?:the\s+)?
  (?:signature|checksum|gpg)\s+(?:verification|validation|check)
test_skip | ignore | @ignore\b|\[ignore\b|#\[ignore
test_skip | skip | \bt\.skip\(|\b(?:it|describe|test)\.skip\b|mark\.skip\b|pytest\.skip
test_skip | xfail | xfail
test_skip | @disabled | @disabled\b
test_skip | deselect | --deselect
ci_off | continue-on-error | continue-on-error\s*:\s*true
ci_off | allow_failure | allow_failure\s*:\s*true
ci_off | || | \|\|\s*(?:true|exit\s+0)(?!\w)
ci_off | exit | \bexit\s+0\b
ci_off | passwithnotests | --passwithnotests
ci_off | protection | branch\s+protection\s+(?:off|disabled)|(?:disabl|turn\s+off|remov|lift)\w*
  \s+(?:the\s+)?branch\s+protection
perms_open | chmod | chmod\s+(?:-r\s+)?(?:0?777|a\+rwx|666)
perms_open | setenforce | setenforce\s+0
perms_open | selinux | selinux\s*=\s*disabled
perms_open | privileged | --privileged\b|\bprivileged\s*:\s*true
perms_open | unconfined | (?:seccomp|apparmor)\s*[=:]\s*unconfined
perms_open | sandbox | --no-sandbox\b|\bsandbox\s*[:=]\s*false\b
perms_open | permissions/yolo/approval/danger-full-access/full-auto | dangerously-?skip-?permissions
  |bypasspermissions|dangerously-bypass-approvals|--yolo\b|approval[_-]?(?:policy|mode)\W+(?:never|yolo)
  |danger-full-access|--full-auto\b
perms_open | cluster-admin | cluster-admin
perms_open | administratoraccess | administratoraccess
perms_open | 0.0.0.0 | 0\.0\.0\.0/0
perms_open | public-read | public-read
perms_open | allowed_hosts | allowed_hosts\s*=\s*\[\s*['"]\*
perms_open | ufw | ufw\s+disable
perms_open | mppreference | disablerealtimemonitoring|add-mppreference\s+-exclusion
perms_open | fa | (?:disabl|turn\s+off|remov|skip|bypass)\w*\s+(?:the\s+)?
  (?:mfa|2fa|two-factor|multi-factor)
  |(?:mfa|2fa|two-factor|multi-factor)\s+(?:off|disabled|optional)
perms_open | admin/owner/root/superuser | (?:grant|give|make)\w*\s+(?:\w+\s+){0,3}
  (?:admin|owner|root|superuser)\s+(?:role|rights|access|privileges?)
retention | expir | never\s+expir\w*|non-?expiring
test_weak | assert/eq/toequal | (?:assert\w*equals?|assert\.equal|\beq\b|toequal|assert_eq)\W.{0,60}
  (?:asserttrue|assert\.true|notnull|not_?none|be_truthy|tobetruthy|tobedefined|isnotnull)
test_weak | expect/golden/snapshot/fixture/baseline | (?:expected|golden|snapshot|fixture|baseline|
  expectation)\w*.{0,60}(?:from|to\s+match|with)\s+(?:the\s+)?(?:current|actual|broken|whatever|new)
  \s+(?:output|result|value|response|build|run)|(?:update|regenerate|overwrite|change|set|replace)\w*
  \s+(?:the\s+)?(?:expected|golden|snapshot|fixture)\w*.{0,50}(?:actual|current|whatever|broken|output)
"""
# What sets a form apart as forbidden, restricted or recounted rather than asked for: the rule
# ("is banned", "not allowed", "only in the test settings", "fails lint"), the story ("was
# reverted", "postmortem", "tracked in PLAT-998") or an exception with its ticket.
_GUARDED = LazyPattern(
    r"\b(?:is|are|was|were|gets?|stays?|be)\s+(?:\w+\s+){0,2}(?:banned|blocked\s+by|forbidden|"
    r"prohibited|disallowed|not\s+allowed|rejected|reverted|removed|masking|only|never|not\s+(?:"
    r"used|allowed|acceptable|ok))\b|\bonly\s+(?:in|inside|on|for|when|if|used|allowed|"
    r"acceptable|ok)\b|\bfor\s+(?:[\w/*-]+\s+){1,4}only\b|\bnever\s+(?:in|on)\b"
    r"|\b(?:reverted|postmortem|incident|used\s+to|led\s+people|we\s+once|advises?\s+against|"
    r"lint\s+rule|ruff\s+rule|fails?\s+(?:lint|review)|refuses|fix\s+the\s+(?:cert|ca)|"
    r"tracked\s+in|pretending|phishing)\b|\b(?:nur|solo|seulement|uniquement|apenas|только|"
    r"tylko)\b|\b(?:dev|test|local)-only\b|禁止|しない"
)
# A skipped test is honest practice with its reason and ticket ("@Disabled("JIRA-552 ...")",
# "xfail(strict=True) for known bugs"): such a note keeps the safeguard too.
_KIND_GUARDS = {
    "test_skip": LazyPattern(
        r"#\d+|\b[a-z]{2,}-(?:\d+|xxx)\b|strict\s*=\s*true|\b(?:issue\s+(?:link|url)|linked\s+issue|"
        r"link\s+an\s+issue|reason\s+and|integration|nightly|before\s+releases|tracked|"
        r"re-?enable\w*)\b|\b(?:must|needs?|doivent|müssen)\s+(?:\w+\s+){0,2}(?:reason|raison|ticket|"
        r"issue|grund)\b|チケット番号|тикет\s+открыт"
    )
}

_ENTRIES: list[tuple[str, tuple[str, ...], LazyPattern]] = []


def _entries() -> list[tuple[str, tuple[str, ...], LazyPattern]]:
    """The table, parsed on first use (the patterns compile on their first search)."""
    if not _ENTRIES:
        rows: list[list[str]] = []
        for line in _TABLE.strip("\n").splitlines():
            if line.startswith("  "):
                rows[-1][2] += line.strip()
            else:
                rows.append([part.strip() for part in line.split(" | ", 2)])
        _ENTRIES.extend(
            (kind, tuple(hints.split("/")), LazyPattern(pattern)) for kind, hints, pattern in rows
        )
    return _ENTRIES


def unsafe_forms(lowered: str) -> list[tuple[str, int]]:
    """Each kind of unsafe setting found in lower-cased ``lowered``, with its first offset."""
    found: dict[str, int] = {}
    for kind, hints, pattern in _entries():
        if kind not in found and any(hint in lowered for hint in hints):
            match = pattern.search(lowered)
            if match:
                found[kind] = match.start()
    return list(found.items())


def guarded(lowered: str, kind: str = "") -> bool:
    """Whether the text forbids, restricts or recounts what it names (see :data:`_GUARDED`;
    ``kind``: also the kind's own honest form, :data:`_KIND_GUARDS`)."""
    own = _KIND_GUARDS.get(kind)
    if own is not None and own.search(lowered):
        return True
    return _GUARDED.search(lowered) is not None
