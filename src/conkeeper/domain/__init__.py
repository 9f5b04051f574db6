"""Pure domain: memory files, categories, privacy, config.

No I/O here beyond reading and writing memory files safely (``textio``).
"""
