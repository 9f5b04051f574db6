"""Token estimates, so every layer budgets agent reads and LLM calls the same way."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (about four characters a token); no tokenizer needed."""
    return (len(text) + 3) // 4
