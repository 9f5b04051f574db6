"""ConKeeper: a memory layer for coding agents that the user owns and can read."""

__version__ = "0.1.0"
