"""Catalogs and query sets authored by the SchemaRouter project (package data only)."""
