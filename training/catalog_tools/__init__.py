"""Offline generators of the bundled catalog files (run by hand, output committed)."""
