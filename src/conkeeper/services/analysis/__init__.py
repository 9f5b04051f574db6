"""Analysis: the shared core that turns corrections and friction into proposals (corrections,
reflection, routing into memory).
"""
