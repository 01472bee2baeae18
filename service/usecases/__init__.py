"""The use cases of the API, the workers and the CLI: no HTTP, no Redis commands."""
