"""HTTP calls to the team server, with the standard library (``urllib``).

Why it exists: the sync and the team search run in the core, which needs nothing beyond the
standard library. Every failure becomes :class:`TeamServerError` with one line a person can
act on; the token is sent only in the ``Authorization`` header and never appears in a message.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from conkeeper.domain.messages import clean_message
from conkeeper.services.team.credentials import TeamCredentials

API = "/api/v1"
TIMEOUT_S = 15.0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects, and urllib would follow one with the ``Authorization`` header
    copied to wherever it points (another host, a captive portal): a redirect is an error."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirect)


class TeamServerError(Exception):
    """The team server could not be used; one line saying what is wrong and what to do, cleaned
    by the privacy module (it carries the server's URL, a redirect's target and the server's own
    error text, which every front door shows: ``team status`` printed them as they came)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(clean_message(message))
        self.status = status


def call(
    creds: TeamCredentials,
    method: str,
    path: str,
    *,
    params: dict[str, Any] | None = None,
    body: object = None,
    timeout: float = TIMEOUT_S,
) -> Any:
    """One JSON request to ``creds.url + /api/v1 + path``; the decoded JSON answer."""
    url = creds.url + API + path
    if params:
        url += "?" + urllib.parse.urlencode(params)
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {creds.token}")
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8") or "null")
    except urllib.error.HTTPError as exc:
        raise TeamServerError(_http_message(creds.url, exc), exc.code) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TeamServerError(f"cannot reach the team server at {creds.url}: {reason}") from None
    except ValueError:
        raise TeamServerError(f"the team server at {creds.url} sent an unreadable answer") from None


TOKEN_REFUSED = 401  # the status of a wrong or revoked token


def _http_message(url: str, exc: urllib.error.HTTPError) -> str:
    if exc.code == TOKEN_REFUSED:
        return (
            f"the team server at {url} refused the token (wrong or revoked); ask for a new one "
            "and run: conkeeper team join URL --token TOKEN"
        )
    if 300 <= exc.code < 400:
        where = exc.headers.get("Location", "") if exc.headers else ""
        where = where.split(API, 1)[0]  # the server's URL, as a person would join it
        return (
            f"the team server at {url} answered {exc.code}, a redirect to {where or 'elsewhere'}; "
            "ConKeeper does not follow it (the token would go along): if that is the team "
            "server, join it by that URL"
        )
    detail = ""
    with contextlib.suppress(ValueError, AttributeError, OSError):
        detail = str(json.loads(exc.read().decode("utf-8")).get("error", ""))
    return f"the team server at {url} answered {exc.code}" + (f": {detail}" if detail else "")


def push(creds: TeamCredentials, project: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Push records of one project; the server's ``{"accepted", "refused"}``."""
    answer = call(creds, "POST", "/push", body={"project": project, "records": records})
    if not isinstance(answer, dict):
        raise TeamServerError(f"the team server at {creds.url} sent an unexpected answer")
    return answer


UPGRADE_REQUIRED = 426  # the status of a server too old to apply deletions


def delete(creds: TeamCredentials, project: str, deletions: list[dict[str, Any]]) -> int:
    """Push deletions of this author's records of one project; how many the server applied.
    A server that answers without ``deleted`` predates deletions: it ignored them, and saying
    so keeps them queued until it is upgraded."""
    answer = call(creds, "POST", "/push", body={"project": project, "deleted": deletions})
    if not isinstance(answer, dict) or not isinstance(answer.get("deleted"), int):
        raise TeamServerError(
            f"the team server at {creds.url} cannot apply deletions (it is older than this "
            "ConKeeper): upgrade it with the server extra and run 'conkeeper server init'",
            UPGRADE_REQUIRED,
        )
    return int(answer["deleted"])


def search(creds: TeamCredentials, project: str, query: str, limit: int) -> list[dict[str, Any]]:
    """Team hits for ``query`` in ``project``, each with its ``author``."""
    answer = call(creds, "GET", "/search", params={"project": project, "q": query, "limit": limit})
    results = answer.get("results") if isinstance(answer, dict) else None
    return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []


def recent(creds: TeamCredentials, project: str, limit: int) -> list[dict[str, Any]]:
    """Teammates' newest decisions and bug fixes in ``project``."""
    answer = call(creds, "GET", "/recent", params={"project": project, "limit": limit})
    results = answer.get("results") if isinstance(answer, dict) else None
    return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []


def whoami(creds: TeamCredentials, project: str | None = None) -> dict[str, Any]:
    """Who the token belongs to (and the project's record count on the server)."""
    answer = call(creds, "GET", "/whoami", params={"project": project} if project else None)
    return answer if isinstance(answer, dict) else {}
