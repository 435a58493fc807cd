"""The Milvus backend of the route index (behind the ``milvus`` extra)."""
