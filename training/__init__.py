"""Offline training and evaluation (never imported by the engine)."""
