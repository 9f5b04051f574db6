"""Upkeep: keeping memory true and tidy (freshness and stale entries, privacy audit, tagging,
doctor).
"""
