"""The host seam: one module per coding agent ConKeeper can serve.

Handlers (``hooks/on_*.py``) and services are host-neutral: they read a :class:`HookPayload`
shaped like ConKeeper's own contract (spec §6, which is Claude Code's) and return a
:class:`HookResult`. Everything that differs between agents lives in one module here:

* ``EVENTS`` — the agent's hook event names mapped to ConKeeper's canonical events;
* ``parse(obj, event)`` — the agent's JSON payload as a neutral payload dict (canonical keys);
* ``render(event, canonical, result)`` — a result as the agent's output (stdout, stderr, exit);
* ``integration(scope, root, env)`` — where its hooks, MCP registration and instructions live
  (an :class:`~conkeeper.hosts.spec.Integration`), for ``conkeeper install --agent``;
* ``transcripts_dir(env)`` where the agent keeps transcripts, when it does.

Host modules import only the standard library and ``conkeeper.domain``, so the hook path stays
cheap and services (install, doctor) can use them. Adding an agent is one module plus tests.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

DEFAULT_HOST = "claude-code"
# agent name -> module under conkeeper.hosts
HOSTS: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
    "copilot": "copilot",
    "windsurf": "windsurf",
    "cline": "cline",
    "zed": "zed",
}
ALIASES: dict[str, str] = {
    "claude": "claude-code",
    "claudecode": "claude-code",
    "codex-cli": "codex",
    "gemini-cli": "gemini",
    "github-copilot": "copilot",
    "copilot-cli": "copilot",
}


def canonical_host(name: str | None) -> str | None:
    """The registered agent name for ``name`` (any case, aliases allowed); ``None`` if unknown."""
    if not name:
        return DEFAULT_HOST
    key = name.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    return key if key in HOSTS else None


def get_host(name: str | None = None) -> ModuleType:
    """The host module for an agent name (imported on first use); ``KeyError`` if unknown."""
    canonical = canonical_host(name)
    if canonical is None:
        raise KeyError(name)
    module = f"conkeeper.hosts.{HOSTS[canonical]}"
    __import__(module)
    return sys.modules[module]
