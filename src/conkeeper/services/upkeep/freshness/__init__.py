"""Memory that stays true (F19): checks of memory entries against the code they describe.

* :mod:`.citations` finds what an entry cites (file paths, symbols, commands, config keys);
* :mod:`.gitrepo` runs git (a small constant number of calls per run) and reads ``HEAD``
  without git;
* :mod:`.history` parses one ``git log -p`` over the memory folder and the cited files;
* :mod:`.stale` turns both into findings with a reason and evidence, cached by ``HEAD``;
* :mod:`.health` counts commits since each memory file changed and what moved since the last
  ``/memory-sync`` (``.last-sync``);
* :mod:`.consolidate` proposes merges of duplicate or contradictory entries as a diff.

Everything here is standard library only and avoids ``dataclasses``/``typing`` at import time,
because SessionStart uses the cached results.
"""
