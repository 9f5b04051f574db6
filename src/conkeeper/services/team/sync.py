"""The team outbox and its push: what opted-in projects hold that the server has not.

Why it exists: ``conkeeper team sync`` (and the detached process SessionEnd starts) delivers
the privacy-clean rows of every project whose ``.memory-config.md`` sets ``team_sync: true``.
The outbox is a high-water mark per server, project and kind (``storage.team_outbox``), kept in
``<data home>/team/marks.json``; a mark advances only after the server acknowledged the batch,
so delivery is at least once and the server's upserts by uid make it exactly once in effect.
One sync runs at a time (a lock file); hooks never call this module.

Deletions travel the same way: the store queues the key of every row deleted from a project
this install pushed (``storage.team_outbox``, schema 6), and the sync sends them, first, to
every server project its marks say the project's rows went to, then drops them once the server
acknowledged them (it keeps a tombstone, so a deletion delivered twice changes nothing).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from conkeeper.domain.config import load_config
from conkeeper.domain.paths import DIGEST_PREFIX, ProjectLocation, live_identity_of
from conkeeper.domain.privacy import clean_or_empty
from conkeeper.services.team import client, credentials, gate, identity, wire
from conkeeper.services.team.unshared import PromptCutter
from conkeeper.storage import team_files, team_outbox
from conkeeper.storage.driver import sqlite3
from conkeeper.storage.team_outbox import LocalProject, OutboxRow
from conkeeper.storage.team_pg import TeamRecord

BATCH = 500
KINDS = ("observation", "summary", "prompt")
_READERS = {
    "observation": team_outbox.observations_after,
    "summary": team_outbox.summaries_since,
    "prompt": team_outbox.prompts_after,
}


class SharedProject(NamedTuple):
    """A local project that shares with the team, and what it shares; ``refused`` says why
    its key may not leave the machine (then ``key`` is empty and nothing of it is sent)."""

    project: LocalProject
    key: str
    kinds: tuple[str, ...]
    refused: str = ""


BLOCKS_DROPPED = (
    "the cached teammates' block was dropped: SessionStart shows no team items until this "
    "machine joins again with a valid token"
)


class SyncResult(NamedTuple):
    """What one sync did: rows pushed, rows still pending, rows refused, the error that
    stopped it (``None`` when it finished), whether the server refused the token (every
    cached team block is then dropped), and a line for each project it left out."""

    pushed: int
    pending: int
    refused: int
    projects: int
    error: str | None
    blocks_dropped: bool = False
    notes: tuple[str, ...] = ()


def shared_projects(
    conn: sqlite3.Connection, here: ProjectLocation | None = None
) -> tuple[list[SharedProject], list[str]]:
    """Projects with ``team_sync: true`` and a team key; notes for those without a key, and
    for each project named after a credential whose folder is not ``here`` (the project the
    command runs in): only its digest is stored, so its settings cannot be read."""
    shared, notes = [], []
    for project in team_outbox.known_projects(conn):
        root = _live_root(project, here)
        if root is None:
            notes.append(_left_out(project))
            continue
        if not root.is_dir():
            continue
        config = load_config(root).config
        if not config.team_sync:
            continue
        kinds = KINDS if config.team_share_prompts else KINDS[:2]
        try:
            key = identity.project_key(root, config.team_project_id)
        except identity.KeyRefused as exc:  # its rows wait, and the sync says why
            shared.append(SharedProject(project, "", kinds, f"{project.root}: {exc}"))
            continue
        if key is None:
            notes.append(
                f"{project.root}: no git origin to name it on the team server; set one with "
                "'conkeeper config set team_project_id NAME'"
            )
            continue
        shared.append(SharedProject(project, key, kinds))
    return shared, notes


def _live_root(project: LocalProject, here: ProjectLocation | None) -> Path | None:
    """The folder of a known project: its stored root, or for a digest identity the live root
    of ``here`` when it is that project (``None`` elsewhere: no path to it is stored)."""
    if not project.identity.startswith(DIGEST_PREFIX):
        return Path(project.root)
    if here is not None and here.identity == project.identity:
        return here.root
    return None


def _left_out(project: LocalProject) -> str:
    """Why a project named after a credential was not synced from here, in one line."""
    return (
        f"{project.root}: not synced from here: its folder is named after a credential, so "
        "only a digest of its path is stored; run 'conkeeper team sync' inside it (its "
        "sessions sync it when they end)"
    )


def _move_named_after_keys(here: ProjectLocation | None) -> None:
    """Marks and the cached team block an earlier version named by a folder holding a
    credential, moved to its digest (``here``'s, whose live path is known)."""
    team_files.rekey_marks()
    if here is not None and here.identity.startswith(DIGEST_PREFIX):
        team_files.move_project(live_identity_of(here.root_folder), here.identity)


def _marks_path() -> Path:
    return credentials.team_dir() / team_files.MARKS_FILE


def load_marks() -> dict[str, dict[str, int]]:
    """Every mark: ``{"<server>|<team>|<project key>|<project identity>": {kind: position}}``."""
    try:
        data = json.loads(_marks_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_marks(marks: dict[str, dict[str, int]]) -> None:
    path = _marks_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{team_files.MARKS_FILE}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(marks, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _mark_key(creds: credentials.TeamCredentials, shared: SharedProject) -> str:
    """Where a project's rows go: the server, the team the token writes into, and the
    project's key there (another team, or a new ``team_project_id``, is a new project on the
    server, which gets every row again); and which local project they come from."""
    return f"{_join_prefix(creds)}{shared.key}|{shared.project.identity}"


def _join_prefix(creds: credentials.TeamCredentials) -> str:
    """The start of every mark name of this join (server and team)."""
    return f"{creds.url}|{creds.team}|" if creds.team else f"{creds.url}|"


def _pushed_to(
    creds: credentials.TeamCredentials, marks: dict[str, dict[str, int]]
) -> dict[str, list[tuple[str, dict[str, int]]]]:
    """For each local project identity, the server project keys of this join its rows were
    pushed to, with their marks (a project key holds no ``|``; an identity may)."""
    prefix = _join_prefix(creds)
    found: dict[str, list[tuple[str, dict[str, int]]]] = {}
    for name, mark in marks.items():
        if not name.startswith(prefix) or not isinstance(mark, dict):
            continue
        key, _, local = name[len(prefix) :].partition("|")
        if key and local:
            found.setdefault(local, []).append((key, mark))
    return found


@contextlib.contextmanager
def _sync_lock() -> Iterator[None]:
    folder = credentials.team_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "sync.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def record_uid(creds: credentials.TeamCredentials, key: str, row: OutboxRow) -> str:
    """The server-side id of a local row: an observation by its content (the same observation
    from two clones is one), a summary or prompt by this install's session key."""
    return _uid(creds, key, row.kind, row.key)


def _uid(creds: credentials.TeamCredentials, key: str, kind: str, local_key: str) -> str:
    """:func:`record_uid` from a row's kind and outbox key (a deleted row has nothing else)."""
    origin = local_key if kind == "observation" else f"{creds.install_id}:{local_key}"
    return hashlib.sha256(f"{kind}\0{key}\0{origin}".encode()).hexdigest()


def to_record(
    creds: credentials.TeamCredentials,
    key: str,
    row: OutboxRow,
    prompts: PromptCutter | None = None,
) -> TeamRecord:
    """A local row as a team record, every text cleaned again (it was clean when stored), the
    words it copied from its session's ``prompts`` cut when the project keeps its prompts
    home, then held to the wire's limits (cut after cleaning, never before)."""

    def clean(text: str) -> str:
        kept = wire.without_controls(str(clean_or_empty(text)))
        return (prompts.cut(kept) if prompts else kept)[: wire.MAX_TEXT]

    def listed(items: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(c for c in (clean(f) for f in items) if c)[: wire.MAX_LIST]

    return TeamRecord(
        uid=record_uid(creds, key, row),
        kind=row.kind,
        type=row.type,
        title=clean(row.title),
        subtitle=clean(row.subtitle),
        facts=listed(row.facts),
        narrative=clean(row.narrative),
        concepts=listed(row.concepts),
        files=listed(row.files),
        created_at=row.created_at,
    )


def pending(
    conn: sqlite3.Connection,
    creds: credentials.TeamCredentials | None = None,
    here: ProjectLocation | None = None,
) -> int:
    """Rows of shared projects, and deletions, the server has not acknowledged yet (a project
    named after a credential counts only from its own folder, ``here``)."""
    creds = creds or credentials.load()
    marks = load_marks()
    total = 0
    for shared in shared_projects(conn, here)[0]:
        mark = marks.get(_mark_key(creds, shared), {})
        for kind in shared.kinds:
            total += team_outbox.pending_count(conn, shared.project.id, kind, mark.get(kind, 0))
    pushed_to = _pushed_to(creds, marks)
    for local in team_outbox.deletion_projects(conn):
        if local in pushed_to:
            total += team_outbox.deletion_count(conn, local)
    return total


class _Run:
    """One sync's tallies: rows and deletions acknowledged, rows refused, requests sent (a
    bounded background run stops at ``max_batches``), the errors met, and whether one of them
    stops the whole sync."""

    def __init__(self, max_batches: int | None) -> None:
        self.max_batches = max_batches
        self.pushed = self.refused = self.batches = 0
        self.errors: list[str] = []
        self.stopped = False
        self.token_refused = False

    def more(self) -> bool:
        """Whether another request may be sent."""
        return self.max_batches is None or self.batches < self.max_batches

    def attempt(self, work: Any, *args: Any) -> None:
        """``work(*args, self)`` unless the sync stopped; a project the server refuses stops
        only that project, a refused token, a server error or no answer stops the sync."""
        if self.stopped:
            return
        try:
            work(*args, self)
        except client.TeamServerError as exc:
            self.failed(exc)

    def failed(self, exc: client.TeamServerError) -> None:
        """Note an error of the server's, and whether it stops the sync."""
        self.errors.append(str(exc))
        self.stopped = not _only_this_project(exc)
        self.token_refused = self.token_refused or exc.status == client.TOKEN_REFUSED


def sync(
    conn: sqlite3.Connection,
    max_batches: int | None = None,
    here: ProjectLocation | None = None,
) -> SyncResult:
    """Push every queued deletion, then every pending row, of every shared project
    (``max_batches``: stop after that many requests, for a bounded background run; ``here``:
    the project the sync runs in, the only one named after a credential it can find). A server
    that cannot be used (down, a refused token, a server error) stops the sync; a project the
    server refuses (its key, say) stops only that project's push, so one bad
    ``team_project_id`` never holds back the others. What was acknowledged stays acknowledged
    and the rest is pending for the next sync."""
    creds = credentials.load()
    run = _Run(max_batches)
    with _sync_lock():
        _move_named_after_keys(here)
        marks = load_marks()
        projects, notes = shared_projects(conn, here)
        pushed_to = _pushed_to(creds, marks)
        # deletions are queued from now on for every project whose rows reach this join
        team_outbox.set_shared(conn, {s.project.identity for s in projects} | set(pushed_to))
        for local in team_outbox.deletion_projects(conn):  # first: a forget is urgent
            run.attempt(_delete_project, conn, creds, pushed_to.get(local, []), local, marks)
        for shared in projects:
            if shared.refused:  # stops only this project, like a key the server refuses
                run.errors.append(shared.refused)
                continue
            run.attempt(_push_project, conn, creds, shared, marks)
        if not run.errors:
            _refresh_recent(creds, projects, run)
        if run.token_refused:
            drop_team_blocks()
    error = "; ".join(run.errors) or None
    return SyncResult(
        run.pushed,
        pending(conn, creds, here),
        run.refused,
        len(projects),
        error,
        run.token_refused,
        tuple(notes),
    )


def drop_team_blocks() -> int:
    """Drop every project's cached "from your team" block: the server refused this machine's
    token (revoked: its owner left the team), so SessionStart must stop showing the team's
    work; the next sync with a valid token caches it again. How many were dropped."""
    from conkeeper.domain.paths import data_folder
    from conkeeper.services.team.recent import drop_all

    return drop_all(data_folder())


def _push_project(
    conn: sqlite3.Connection,
    creds: credentials.TeamCredentials,
    shared: SharedProject,
    marks: dict[str, dict[str, int]],
    run: _Run,
) -> None:
    """Push one project's pending rows, kind by kind, saving the mark after each acknowledged
    batch."""
    mark = marks.setdefault(_mark_key(creds, shared), {})
    for kind in shared.kinds:
        while run.more():
            rows = _READERS[kind](conn, shared.project.id, mark.get(kind, 0), BATCH)
            if not rows:
                break
            cutters = None if "prompt" in shared.kinds else _prompt_cutters(conn, rows)
            sent, dropped = _named(shared.key, _push_batch, creds, shared.key, rows, cutters)
            run.batches += 1
            run.pushed += sent
            run.refused += dropped
            mark[kind] = max(r.position for r in rows)
            _save_marks(marks)


def _delete_project(
    conn: sqlite3.Connection,
    creds: credentials.TeamCredentials,
    targets: list[tuple[str, dict[str, int]]],
    local: str,
    marks: dict[str, dict[str, int]],
    run: _Run,
) -> None:
    """Send one local project's queued deletions to every server project its rows were pushed
    to (kinds it never pushed there are left out), then drop them from the queue; a deletion
    whose row is back (re-extracted, a resumed session's prompt) is dropped unsent, its upsert
    says what the server holds. Nothing pushed under this join: nothing to delete there."""
    while run.more():
        queued = team_outbox.deletions(conn, local, BATCH)
        if not queued:
            break
        for _key, mark in targets:
            _step_back(mark, queued)
        _save_marks(marks)  # before the deletions leave the queue
        for key, mark in targets:
            items = [
                wire.deletion_to_json(_uid(creds, key, d.kind, d.key), d.deleted_at)
                for d in queued
                if not d.live and d.kind in mark
            ]
            if items:
                run.pushed += _named(key, client.delete, creds, key, items)
                run.batches += 1
        team_outbox.drop_deletions(conn, [d.id for d in queued])


def _step_back(mark: dict[str, int], queued: list[team_outbox.Deletion]) -> None:
    """Move the prompts' mark below the lowest deleted prompt's id: prompt ids are reused (not
    ``AUTOINCREMENT``), so the next prompt may take a deleted one's id at or under the mark,
    and would never be pushed. Prompts after it are sent again, which changes nothing there."""
    freed = [d.row_id for d in queued if d.kind == "prompt" and d.row_id > 0]
    if freed and "prompt" in mark:
        mark["prompt"] = min(mark["prompt"], min(freed) - 1)


def _named(key: str, request: Any, *args: Any) -> Any:
    """``request(*args)``, its error naming the project when the sync goes on to the next."""
    try:
        return request(*args)
    except client.TeamServerError as exc:
        raise client.TeamServerError(_project_error(key, exc), exc.status) from None


def _only_this_project(exc: client.TeamServerError) -> bool:
    """A refusal of the request itself (400, 404, 409, 413, 422): the next project may go
    through. A refused token (401, 403), a server error or no answer stops the sync."""
    return 400 <= exc.status < 500 and exc.status not in (401, 403, 429)


def _project_error(key: str, exc: client.TeamServerError) -> str:
    """The error with the project it concerns, when the sync goes on to the next one."""
    if not _only_this_project(exc):
        return str(exc)
    return clean_or_empty(f"project {key}: {exc}")


def _refresh_recent(
    creds: credentials.TeamCredentials, projects: list[SharedProject], run: _Run
) -> None:
    """Cache teammates' newest decisions and bug fixes per shared project for SessionStart
    (which never asks the network itself). Best effort: a failure keeps the old cache, but a
    refused token is the sync's error (a sync with nothing to push asks only this)."""
    from conkeeper.domain.paths import data_folder
    from conkeeper.services.team.recent import write_recent

    for shared in projects:
        try:
            hits = client.recent(creds, shared.key, recent_limit())
        except client.TeamServerError as exc:
            if exc.status == client.TOKEN_REFUSED:
                run.failed(exc)
            return
        items = [
            {
                "author": str(clean_or_empty(str(hit.get("author", "")))),
                "type": str(clean_or_empty(str(hit.get("type", "")))),
                "title": str(clean_or_empty(str(hit.get("title", ""))))[:160],
                "when": _day(hit.get("created_at")),
            }
            for hit in hits
        ]
        write_recent(data_folder(), shared.project.identity, items)


def recent_limit() -> int:
    """How many teammates' items SessionStart may show."""
    from conkeeper.services.team.recent import MAX_ITEMS

    return MAX_ITEMS


def _day(value: object) -> str:
    import time

    if not isinstance(value, int) or value <= 0:
        return ""
    return time.strftime("%Y-%m-%d", time.localtime(value / 1000))


def _prompt_cutters(conn: sqlite3.Connection, rows: list[OutboxRow]) -> dict[int, PromptCutter]:
    """For a project that does not share its prompts: each session's prompts, to cut out of
    the summaries and observations that quote them."""
    sessions = sorted({row.session for row in rows if row.session})
    found = team_outbox.session_prompts(conn, sessions)
    return {session: PromptCutter(texts) for session, texts in found.items()}


def _push_batch(
    creds: credentials.TeamCredentials,
    key: str,
    rows: list[OutboxRow],
    cutters: dict[int, PromptCutter] | None = None,
) -> tuple[int, int]:
    """Push one batch; (rows the server accepted, rows refused here or there)."""
    cut = cutters or {}
    candidates = [to_record(creds, key, row, cut.get(row.session)) for row in rows]
    problems = gate.batch_problems([wire.record_texts(r) for r in candidates])
    records = [
        wire.record_to_json(r)
        for r, problem in zip(candidates, problems, strict=True)
        if not problem
    ]
    accepted, refused = 0, len(candidates) - len(records)  # those never leave the machine
    for part in _parts(records):
        answer = client.push(creds, key, part)
        there = answer.get("refused")
        accepted += int(answer.get("accepted", 0))
        refused += len(there) if isinstance(there, list) else 0
    return accepted, refused


def _parts(records: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """A batch in requests of at most :data:`~conkeeper.services.team.wire.PUSH_PART_BYTES`
    of JSON each (a record larger than that alone): 500 long rows in a language of three bytes
    a character passed the server's limit, and the same oversized request was refused on every
    sync, so the project's sync never moved again."""
    part: list[dict[str, Any]] = []
    size = 0
    for record in records:
        length = len(json.dumps(record, ensure_ascii=False).encode("utf-8")) + 2
        if part and size + length > wire.PUSH_PART_BYTES:
            yield part
            part, size = [], 0
        part.append(record)
        size += length
    if part:
        yield part
