"""Capture: an agent run becomes an ATIF trajectory (model layer, recorder, replay)."""
