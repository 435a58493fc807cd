"""SchemaRouter adapters."""
