"""Setup: putting ConKeeper in place (memory folder init, hook registration, other agents, the
demo).
"""
