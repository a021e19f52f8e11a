"""The chunked (out-of-core) route: edges read, copied and united a chunk at a time."""
