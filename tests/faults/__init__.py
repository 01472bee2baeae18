"""Fault tests: real redis-server, gunicorn and worker processes, killed with SIGKILL and
started again (``tests/faults/conftest.py`` is the harness, ``tests/faults/tables.py``
plays matches over HTTP and checks their logs)."""
