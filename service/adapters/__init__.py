"""Adapters at the edge: the Redis event store and its indexes, the job queue, webhook HTTP."""
