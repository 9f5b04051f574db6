"""Opt-in LLM extractors: Claude (``claude -p`` CLI or the Agent SDK), the Anthropic API and any
OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio ...).

The two HTTP providers speak their JSON APIs through ``urllib`` from the standard library: one
POST each, so they work without the ``anthropic``/``openai`` packages installed (the ``llm``
extra is only needed for the Agent SDK) and tests can point them at a local fake server. The
Agent SDK is imported lazily inside its client, never at module import.

Every client turns one (system, prompt) pair into an :class:`LlmReply` or raises
:class:`LlmError`; the caller (``services.observations.extract``) owns privacy, truncation,
the budget and the fall-back to the local extractor.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from conkeeper.domain.config import Config
from conkeeper.domain.tokens import estimate_tokens

LLM_EXTRACTORS = ("claude-cli", "claude-agent-sdk", "anthropic", "openai")
DEFAULT_MODELS = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-4o-mini",
    "claude-cli": "",
    "claude-agent-sdk": "",
}
DEFAULT_BASE_URLS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
}
HTTP_TIMEOUT_S = 90
CLI_TIMEOUT_S = 180
MAX_OUTPUT_TOKENS = 2048
MAX_REPLY_BYTES = 2 * 1024 * 1024
# Set in the environment of a spawned ``claude``: ConKeeper's own hooks must not observe the
# memory processor's session (that would feed extraction back into itself).
CHILD_ENV_MARKER = "CONKEEPER_DISABLE_HOOKS"


class LlmError(Exception):
    """An LLM call failed; the message is one line (never includes the prompt or a key)."""


@dataclass(frozen=True)
class LlmReply:
    """The text of a reply and the tokens it cost (estimated when the provider is silent)."""

    text: str
    input_tokens: int
    output_tokens: int

    @property
    def tokens(self) -> int:
        """Total tokens, for the daily budget."""
        return self.input_tokens + self.output_tokens


class LlmClient(Protocol):
    """What an extractor needs from a provider."""

    name: str

    def complete(self, system: str, prompt: str) -> LlmReply:
        """Send one request and return the reply; raise :class:`LlmError` on any failure."""
        ...


def _usage(data: Mapping[str, object], keys: tuple[str, str], fallback: tuple[str, str]) -> tuple:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return estimate_tokens(fallback[0]), estimate_tokens(fallback[1])
    first = usage.get(keys[0])
    second = usage.get(keys[1])
    return (
        first if isinstance(first, int) else estimate_tokens(fallback[0]),
        second if isinstance(second, int) else estimate_tokens(fallback[1]),
    )


def _post_json(url: str, body: dict, headers: dict[str, str]) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
            raw = response.read(MAX_REPLY_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise LlmError(f"HTTP {exc.code} from {_host(url)}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LlmError(f"cannot reach {_host(url)}: {reason}") from None
    if len(raw) > MAX_REPLY_BYTES:
        raise LlmError(f"reply from {_host(url)} is too large")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        raise LlmError(f"reply from {_host(url)} is not JSON") from None
    if not isinstance(data, dict):
        raise LlmError(f"reply from {_host(url)} is not a JSON object")
    return data


def _host(url: str) -> str:
    return urllib.parse.urlparse(url).netloc or url


@dataclass
class AnthropicClient:
    """The Anthropic Messages API (``ANTHROPIC_API_KEY``)."""

    model: str
    base_url: str
    api_key: str
    name: str = "anthropic"

    def complete(self, system: str, prompt: str) -> LlmReply:
        """POST /v1/messages and join the reply's text blocks."""
        data = _post_json(
            self.base_url.rstrip("/") + "/v1/messages",
            {
                "model": self.model,
                "max_tokens": MAX_OUTPUT_TOKENS,
                "system": system,
                "messages": [{"role": "user", "content": prompt}],
            },
            {"x-api-key": self.api_key, "anthropic-version": "2023-06-01"},
        )
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise LlmError("Anthropic reply has no content")
        text = "".join(
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        )
        tin, tout = _usage(data, ("input_tokens", "output_tokens"), (system + prompt, text))
        return LlmReply(text, tin, tout)


@dataclass
class OpenAiClient:
    """An OpenAI-compatible chat-completions endpoint (OpenAI, Ollama's ``/v1``, vLLM ...)."""

    model: str
    base_url: str
    api_key: str
    name: str = "openai"

    def complete(self, system: str, prompt: str) -> LlmReply:
        """POST /chat/completions and return the first choice's message."""
        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = _post_json(
            self.base_url.rstrip("/") + "/chat/completions",
            {
                "model": self.model,
                "max_tokens": MAX_OUTPUT_TOKENS,
                "temperature": 0,
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": prompt},
                ],
            },
            headers,
        )
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LlmError("OpenAI-compatible reply has no choices") from None
        if not isinstance(text, str):
            raise LlmError("OpenAI-compatible reply content is not text")
        tin, tout = _usage(data, ("prompt_tokens", "completion_tokens"), (system + prompt, text))
        return LlmReply(text, tin, tout)


@dataclass
class ClaudeCliClient:
    """``claude -p --output-format json``: the user's own Claude Code login, no API key."""

    executable: str
    model: str
    name: str = "claude-cli"

    def complete(self, system: str, prompt: str) -> LlmReply:
        """Run one non-interactive ``claude`` with the prompt on stdin."""
        argv = [self.executable, "-p", "--output-format", "json"]
        if self.model:
            argv += ["--model", self.model]
        env = dict(os.environ)
        env[CHILD_ENV_MARKER] = "1"
        try:
            proc = subprocess.run(
                argv,
                input=(system + "\n\n" + prompt).encode("utf-8"),
                capture_output=True,
                timeout=CLI_TIMEOUT_S,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise LlmError(f"claude did not answer within {CLI_TIMEOUT_S} s") from None
        except OSError as exc:
            raise LlmError(f"cannot run claude: {exc.strerror or exc}") from None
        out = proc.stdout[:MAX_REPLY_BYTES].decode("utf-8", errors="replace")
        if proc.returncode != 0:
            first = (proc.stderr.decode("utf-8", errors="replace").strip().splitlines() or [""])[0]
            raise LlmError(f"claude exited with {proc.returncode}: {first[:200]}")
        return _cli_reply(out, system + prompt)


def _cli_reply(out: str, sent: str) -> LlmReply:
    """Read ``claude -p --output-format json`` output (plain text is accepted too)."""
    try:
        data = json.loads(out)
    except ValueError:
        return LlmReply(out, estimate_tokens(sent), estimate_tokens(out))
    if not isinstance(data, dict):
        return LlmReply(out, estimate_tokens(sent), estimate_tokens(out))
    if data.get("is_error") is True:
        raise LlmError(f"claude reported an error: {str(data.get('result', ''))[:200]}")
    text = data.get("result")
    if not isinstance(text, str):
        raise LlmError("claude reply has no result text")
    raw_usage = data.get("usage")
    usage: dict[str, object] = raw_usage if isinstance(raw_usage, dict) else {}
    tin: int = sum(
        v
        for k, v in usage.items()
        if k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        and isinstance(v, int)
    )
    tout = usage.get("output_tokens")
    return LlmReply(
        text,
        tin or estimate_tokens(sent),
        tout if isinstance(tout, int) else estimate_tokens(text),
    )


@dataclass
class ClaudeAgentSdkClient:
    """The Claude Agent SDK (``pip install 'conkeeper[llm]'`` plus ``claude-agent-sdk``)."""

    model: str
    name: str = "claude-agent-sdk"

    def complete(self, system: str, prompt: str) -> LlmReply:
        """One tool-less ``query`` through the SDK, run to completion."""
        try:
            from claude_agent_sdk import ClaudeAgentOptions, query
        except ImportError:
            raise LlmError(
                "the Claude Agent SDK is not installed (pip install claude-agent-sdk)"
            ) from None
        import asyncio

        options = ClaudeAgentOptions(
            system_prompt=system,
            allowed_tools=[],
            max_turns=1,
            model=self.model or None,
            env={CHILD_ENV_MARKER: "1"},
        )

        async def run() -> LlmReply:
            parts: list[str] = []
            usage: dict = {}
            async for message in query(prompt=prompt, options=options):
                for block in getattr(message, "content", None) or []:
                    text = getattr(block, "text", None)
                    if isinstance(text, str):
                        parts.append(text)
                found = getattr(message, "usage", None)
                if isinstance(found, dict):
                    usage = found
            text = "".join(parts)
            tin = usage.get("input_tokens") if isinstance(usage.get("input_tokens"), int) else None
            tout = usage.get("output_tokens")
            return LlmReply(
                text,
                tin or estimate_tokens(system + prompt),
                tout if isinstance(tout, int) else estimate_tokens(text),
            )

        try:
            return asyncio.run(run())
        except LlmError:
            raise
        except Exception as exc:  # the SDK raises its own hierarchy; any failure falls back
            raise LlmError(f"Agent SDK call failed: {type(exc).__name__}: {exc}") from None


def make_client(config: Config, env: Mapping[str, str] | None = None) -> LlmClient:
    """The client for ``config.extractor``; :class:`LlmError` when it cannot work here."""
    environ = os.environ if env is None else env
    name = config.extractor
    model = config.llm_model or DEFAULT_MODELS.get(name, "")
    base = config.llm_base_url or DEFAULT_BASE_URLS.get(name, "")
    if name == "anthropic":
        key = environ.get("ANTHROPIC_API_KEY", "")
        if not key:
            raise LlmError("ANTHROPIC_API_KEY is not set")
        return AnthropicClient(model, base, key)
    if name == "openai":
        key = environ.get("OPENAI_API_KEY", "")
        if not key and base == DEFAULT_BASE_URLS["openai"]:
            raise LlmError("OPENAI_API_KEY is not set (a local endpoint needs llm_base_url)")
        return OpenAiClient(model, base, key)
    if name == "claude-cli":
        executable = shutil.which("claude", path=environ.get("PATH"))
        if executable is None:
            raise LlmError("the 'claude' command is not on PATH")
        return ClaudeCliClient(executable, model)
    if name == "claude-agent-sdk":
        return ClaudeAgentSdkClient(model)
    raise LlmError(f"unknown LLM extractor '{name}'")
