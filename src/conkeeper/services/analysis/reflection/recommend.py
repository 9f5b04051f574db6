"""From findings to prioritised, numbered recommendations (seed 001, phase 08, phase 5).

Each recommendation says What to change, Why (the quoted evidence and its count), Where (the
memory file it would go to), its expected Impact, a retrospective category and a scope
(PROCESS: how the agent works; PROJECT: the codebase and its documentation). Priority is
frequency × recency × severity. Anything memory already holds (:mod:`.known`) is dropped and
reported as known instead, so a convention is never proposed twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from conkeeper.services.analysis.reflection import findings as f
from conkeeper.services.analysis.reflection.known import KnownItem, contradicted, match
from conkeeper.services.analysis.reflection.rules import imperative_rule

HALF_LIFE_DAYS = 7.0
LIMITS = {"minimal": 2, "standard": 5, "thorough": 12}
PROCESS, PROJECT, BOTH = "PROCESS", "PROJECT", "BOTH"


@dataclass
class Recommendation:
    """One numbered proposal. ``rule`` is the text approval writes into ``where``;
    ``memory_category`` is its tag there, ``category`` its retrospective category."""

    number: int
    kind: str
    key: str
    what: str
    why: list[str]
    where: str
    impact: str
    category: str
    scope: str
    rule: str
    memory_category: str
    count: int
    score: float
    conflict: str = ""  # the rule in memory it says the opposite of (patterns.md "...")

    def to_dict(self) -> dict[str, object]:
        """Plain data for ``--json``."""
        from dataclasses import asdict

        return asdict(self)


def priority(finding: f.Finding, now_ms: int) -> float:
    """Frequency × recency × severity; recency halves every :data:`HALF_LIFE_DAYS` days."""
    age_days = max(0.0, (now_ms - finding.last_ms) / 86_400_000)
    recency = 0.5 ** (age_days / HALF_LIFE_DAYS)
    return round(finding.count * recency * finding.severity, 3)


def _why(finding: f.Finding, noun: str) -> list[str]:
    head = f"{noun} {finding.count}×"
    return [head, *(f'"{q}"' for q in finding.quotes)]


# What a convention's rule says when the corrections state none: approval then needs the rule
# in the user's own words (``reflect approve N --text``), never a vague line in patterns.md.
UNSTATED = "no rule stated in the corrections"


def _settled_code(rule: str | None, fixes: list[tuple[str, str]]) -> str | None:
    """``rule`` with the code a later prompt put right ("`make check`, not `make lint`")
    replaced, unless the rule already names both (it is the rule that rejects the old one)."""
    for old, new in fixes:
        if rule and f"`{old}`" in rule and f"`{new}`" not in rule:
            rule = rule.replace(f"`{old}`", f"`{new}`")
    return rule


def _convention(finding: f.Finding) -> dict[str, Any]:
    rule = _settled_code(imperative_rule(finding.texts), finding.fixes) or (
        f"Convention on '{finding.label}' ({finding.count}×, quoted in the retro's evidence): "
        f'{UNSTATED}; approve it with --text "the rule".'
    )
    return {
        "what": f"Record the convention about '{finding.label}' in patterns.md: {f.quote(rule)}",
        "why": _why(finding, f"corrected on '{finding.label}'"),
        "where": "patterns.md",
        "impact": "the agent reads the convention at session start and stops repeating it",
        "category": "quality",
        "scope": PROJECT,
        "rule": rule,
        "memory_category": "convention",
    }


def _friction(finding: f.Finding) -> dict[str, Any]:
    rule = (
        f"Check work touching '{finding.label}' before calling it done: it went wrong "
        f"{finding.count}× before."
    )
    return {
        "what": f"Note the friction around '{finding.label}' in active-context.md",
        "why": _why(finding, "friction signalled"),
        "where": "active-context.md",
        "impact": "the next session starts aware of what did not go well",
        "category": "ux",
        "scope": PROCESS,
        "rule": rule,
        "memory_category": "learning",
    }


def _repeated(finding: f.Finding) -> dict[str, Any]:
    rule = (
        f"When `{finding.label}` fails, read the first error and fix its cause before "
        f"re-running (it failed {finding.count}× in one session)"
    )
    return {
        "what": f"Stop re-running `{finding.label}` unchanged: check the failure first",
        "why": _why(finding, "failed"),
        "where": "patterns.md",
        "impact": "fewer blind retries; the failing cause is fixed sooner",
        "category": "efficiency",
        "scope": PROCESS,
        "rule": rule,
        "memory_category": "pattern",
    }


def _loop(finding: f.Finding) -> dict[str, Any]:
    rule = (
        f"{finding.label}: after editing it, run its tests and read the failure before the next "
        f"edit ({finding.count} edit → fail cycles in one session)"
    )
    return {
        "what": f"Break the edit → fail loop on {finding.label}",
        "why": _why(finding, "edit → fail cycles"),
        "where": "patterns.md",
        "impact": "fewer speculative edits on a file that keeps failing",
        "category": "quality",
        "scope": BOTH,
        "rule": rule,
        "memory_category": "pattern",
    }


def _abandoned(finding: f.Finding) -> dict[str, Any]:
    what = f"Pick up `{finding.label}`, still failing when the work stopped"
    if finding.unread:  # its last run printed no result: that it still fails is not known
        what = (
            f"Check `{finding.label}`: it failed, and its last run (`{finding.unread}`) "
            "printed no result to read"
        )
    return {
        "what": what,
        "why": _why(finding, "left failing"),
        "where": "active-context.md",
        "impact": "the next session starts from the open failure instead of rediscovering it",
        "category": "quality",
        "scope": PROJECT,
        "rule": f"Get `{finding.label}` passing before starting new work.",
        "memory_category": "learning",
    }


def _slow(finding: f.Finding) -> dict[str, Any]:
    return {
        "what": f"Find a faster way to run `{finding.label}` (or run a narrower part of it)",
        "why": _why(finding, "slow runs"),
        "where": "patterns.md",
        "impact": "shorter waits in the edit → run cycle",
        "category": "efficiency",
        "scope": PROCESS,
        "rule": f"Run a narrower part of `{finding.label}` while iterating; the full run is slow.",
        "memory_category": "pattern",
    }


_BUILDERS = {
    f.CORRECTION_THEME: _convention,
    f.FRICTION: _friction,
    f.REPEATED_FAILURE: _repeated,
    f.RETRY_LOOP: _loop,
    f.ABANDONED: _abandoned,
    f.SLOW: _slow,
}


@dataclass
class Proposals:
    """The ranked recommendations and the findings memory already covers."""

    recommendations: list[Recommendation]
    known: list[tuple[f.Finding, KnownItem]]


def recommend(
    found: list[f.Finding],
    known: list[KnownItem],
    *,
    depth: str = "standard",
    first_number: int = 1,
    now_ms: int | None = None,
) -> Proposals:
    """Rank ``found``, drop what ``known`` covers, number the rest from ``first_number``."""
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    ranked = sorted(found, key=lambda x: (-priority(x, now), x.kind, x.key))
    recommendations: list[Recommendation] = []
    covered: list[tuple[f.Finding, KnownItem]] = []
    for finding in ranked:
        fields = _BUILDERS[finding.kind](finding)
        against = _against(finding, str(fields["rule"]), known)
        same = match(str(fields["rule"]), known) or match(" ".join(finding.texts), known)
        if same is not None and against is None:
            covered.append((finding, same))
            continue
        if len(recommendations) >= LIMITS.get(depth, LIMITS["standard"]):
            continue
        recommendations.append(
            Recommendation(
                number=first_number + len(recommendations),
                kind=finding.kind,
                key=finding.key,
                count=finding.count,
                score=priority(finding, now),
                conflict=_conflict(against),
                **fields,
            )
        )
    return Proposals(recommendations, covered)


def _conflict(against: KnownItem | None) -> str:
    """Where the entry a rule says the opposite of stands, and its text cleaned whole by the
    privacy module before it is quoted (a memory file may hold a secret typed by mistake)."""
    if against is None:
        return ""
    from conkeeper.domain.privacy import clean_or_empty

    return f'{against.source} "{f.quote(clean_or_empty(against.text))}"'


def _against(finding: f.Finding, rule: str, known: list[KnownItem]) -> KnownItem | None:
    """The rule in memory a convention's rule contradicts: flagged, never "already in memory"
    and never written beside it unseen."""
    if finding.kind != f.CORRECTION_THEME or UNSTATED in rule:
        return None
    return contradicted(rule, known)


def overall_scope(recommendations: list[Recommendation]) -> str:
    """PROCESS or PROJECT when every recommendation agrees, else BOTH."""
    scopes = {r.scope for r in recommendations}
    if scopes == {PROCESS}:
        return PROCESS
    if scopes == {PROJECT}:
        return PROJECT
    return BOTH
