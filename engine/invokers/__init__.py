"""SchemaRouter invokers."""
