"""Registry: the versioned registry, catalog files, compilation, schema diffs and the
reading of foreign documents.
"""
