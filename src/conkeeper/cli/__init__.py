"""CLI front door: thin commands that parse arguments and call services."""
