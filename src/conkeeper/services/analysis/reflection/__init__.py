"""The shared analysis core (seed 000, "Shared Analysis Core"; spec F14) and its retro output.

Corrections routing (``conkeeper corrections apply|reject``) and reflection (``conkeeper
reflect``) read the same evidence, cluster it with the same themes, deduplicate it against the
same known memory, and prioritise it the same way; they differ only in output. Modules:

* :mod:`.themes` — content words and clustering of texts into themes;
* :mod:`.known` — what memory already knows (patterns, decisions, earlier retros, applied
  corrections), for deduplication;
* :mod:`.evidence` — gathering privacy-stripped evidence for a session or a period;
* :mod:`.findings` — repeated failures, retry loops, correction themes, friction, slow and
  abandoned work;
* :mod:`.recommend` — prioritised, numbered recommendations;
* :mod:`.retro` — the ``sessions/YYYY-MM-DD-retro.md`` file in the seed's format;
* :mod:`.reflect` — the operations behind ``conkeeper reflect`` (run, approve, decline);
* :mod:`.insights` — trends across sessions for ``conkeeper insights``.

This package's ``__init__`` imports nothing, so routing can use :mod:`.known` cheaply.
"""
