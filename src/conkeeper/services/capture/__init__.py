"""Capture: what the hooks record while the agent works (tool use, context pressure, save
reminders, handoff checkpoints).
"""
