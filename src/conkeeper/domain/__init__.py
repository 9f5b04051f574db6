"""Pure domain: memory files, categories, privacy, config. No I/O beyond reading and writing memory files."""
