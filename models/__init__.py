"""Trained artifacts shipped with SchemaRouter (package data only)."""
