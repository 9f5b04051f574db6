"""Team search from a project: the team store's hits for the current project, with authors.

Why it exists: ``conkeeper search QUERY --team`` and the MCP ``search`` tool's ``team`` scope
add what teammates (and this user's other machines) recorded about this project. The hits are
untrusted text from other people: the caller shows them as data with their author, never as
instructions, and they are cleaned by the privacy module again before anything shows them. The
query is cleaned before it is sent (:func:`query_to_send`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from conkeeper.domain.config import load_config
from conkeeper.domain.privacy import clean_or_empty
from conkeeper.services.team import client, credentials, identity
from conkeeper.services.workspace import current_project


class TeamSearch(NamedTuple):
    """Team hits (each a dict with ``author``) and, when the team could not be asked, why."""

    hits: list[dict[str, Any]]
    project: str | None
    error: str | None


def current_key(cwd: Path) -> str | None:
    """The team key of the project around ``cwd`` (:class:`~conkeeper.services.team.identity.
    KeyRefused` when it holds a secret)."""
    root = current_project(cwd).root
    return identity.project_key(root, load_config(root).config.team_project_id)


def team_search(cwd: Path, query: str, limit: int = 10) -> TeamSearch:
    """Ask the team server about ``query`` in the current project; an unreachable server or a
    missing join is reported in ``error``, never raised (the local results still count)."""
    creds = credentials.load_optional()
    if creds is None:
        return TeamSearch([], None, "not joined to a team server (conkeeper team join URL)")
    try:
        key = current_key(cwd)
    except identity.KeyRefused as exc:
        return TeamSearch([], None, str(exc))
    if key is None:
        return TeamSearch([], None, "this project has no git origin or team_project_id")
    asked = query_to_send(query)
    if not asked:
        return TeamSearch([], key, "the query is private or a secret: the team was not asked")
    try:
        hits = client.search(creds, key, asked, limit)
    except client.TeamServerError as exc:
        return TeamSearch([], key, str(exc))
    from conkeeper.services.quarantine import hold_team_pairs

    return TeamSearch(hold_team_pairs([_cleaned(h) for h in hits], HELD_MARK), key, None)


# the mark the privacy module leaves where it redacted a secret (domain.secrets)
_REDACTION_MARK = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def query_to_send(query: str) -> str:
    """A query as it may leave the machine: cleaned by the privacy module (private spans cut,
    secrets redacted) like every text ConKeeper sends, the redaction marks dropped (nobody
    searches for them). The query travels in the request's URL, which a proxy in front of
    the server may log."""
    cleaned = str(clean_or_empty(query))
    return " ".join(_REDACTION_MARK.sub(" ", cleaned).split())


HELD_MARK = "[held: a teammate's text that reads like an instruction; ask them about it]"
_SHORTEST_ORDER = 12  # characters: a shorter text is never judged
_JUDGED = frozenset({"title", "subtitle", "narrative"})


def _cleaned(hit: dict[str, Any]) -> dict[str, Any]:
    """A hit with every text cleaned again (it came over the network from other people), and
    its title, subtitle, narrative and facts held when they read like an order: the
    SessionStart team block leaves such a title out, so an agent's search must not hand it
    over verbatim either. The hit is judged whole first, its author, type and uid with its
    texts, as SessionStart and the MCP tools judge it (a type is 40 characters of the
    pusher's choosing)."""
    out = dict(hit)
    for name in ("title", "subtitle", "narrative", "author", "type", "kind", "uid", "project"):
        out[name] = str(clean_or_empty(str(hit.get(name, ""))))
    facts = hit.get("facts")
    out["facts"] = [str(clean_or_empty(str(f))) for f in facts] if isinstance(facts, list) else []
    if _held_whole(out):
        return out
    for name in _JUDGED:
        out[name] = _held(out[name])
    out["facts"] = [_held(fact) for fact in out["facts"]]
    return out


def _held_whole(out: dict[str, Any]) -> bool:
    """Whether the cleaned hit ``out`` reads like an order as a whole
    (:func:`conkeeper.services.quarantine.hold_team_hit`); if so its texts are replaced by
    :data:`HELD_MARK` and its author, type and uid by what that check leaves of them."""
    from conkeeper.services.quarantine import TEAM_HELD_MARK, hold_team_hit

    judged = hold_team_hit(out)
    if judged["title"] != TEAM_HELD_MARK:
        return False
    out.update(title=HELD_MARK, subtitle="", narrative="", facts=[])
    out.update({name: judged[name] for name in ("author", "type", "uid") if name in judged})
    return True


def _held(text: str) -> str:
    """``text``, or :data:`HELD_MARK` when it reads like an order."""
    if len(text) < _SHORTEST_ORDER:
        return text
    from conkeeper.services.quarantine import reads_as_order

    return HELD_MARK if reads_as_order(text) else text
