"""Corrections the user took back: a correction whose very next prompt in the same session
withdraws it ("never mind, npm is fine", "scratch that", "ignore what I said") teaches
nothing, and reflect and insights must not make a rule or a theme of it.

A correction typed as a reply to the agent's question ("No, don't use npm, use yarn") is queued
by the hook the moment it is sent; only the next prompt tells that it was withdrawn, so the
analysis reads the pair, and the queue line stays for the person to reject.
"""

from __future__ import annotations

import re

# At the start of the prompt (after an "oh", "sorry", "ok" or "actually"): a withdrawal of what
# was just said, in English and a few other languages the detector reads.
_WITHDRAWS = re.compile(
    r"^(?:(?:oh|ah|ok(?:ay)?|sorry|oops|wait|actually|hmm+)[\s,.!]+)*"
    r"(?:never\s?mind|nvm|scratch that|forget (?:it|that|what i said)|"
    r"(?:ignore|disregard) (?:that|my last|what i (?:just )?said)|"
    r"cancel that|i take (?:it|that) back|i was wrong|my (?:bad|mistake)|"
    r"vergiss es|vergiss das|laisse tomber|oublie (?:ça|ca)|olv[ií]dalo|no importa|"
    r"lascia perdere|deixa pra l[aá]|算了|没事了|不用了|気にしないで|やっぱりいい|"
    r"취소|됐어)\b",
    re.IGNORECASE,
)


def withdraws(prompt: str) -> bool:
    """Whether ``prompt`` takes back what the user said just before it."""
    return bool(_WITHDRAWS.match(" ".join(prompt.split())))


def withdrawn_times(prompts: list[str], times: list[int], sessions: list[int]) -> set[int]:
    """The send times (ms) of the prompts that the next prompt of their session withdraws."""
    taken_back: set[int] = set()
    for i in range(len(prompts) - 1):
        if sessions[i] == sessions[i + 1] and withdraws(prompts[i + 1]):
            taken_back.add(times[i])
    return taken_back
