"""Structured observations and session summaries (F11), progressive retrieval (F12) and
transcript import (F18).

Modules: ``model`` (records and normalisation), ``local_extractor`` and ``llm_extractors``
(with ``prompts``, ``xml_parse``, ``budget``), ``extract`` (running them over a session),
``repository`` (their SQL), ``retrieval`` (the five levels), ``transcripts`` (import), and
``hygiene`` (forget, export, import of backups). Nothing here is imported on the hook path
except by the detached ``conkeeper extract`` worker.
"""
