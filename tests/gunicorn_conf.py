"""A tiny gunicorn config for the tests' own servers: gunicorn's errors as JSON.

This is how a deployment wires ``service.gunicorn_errors``: its ``post_worker_init``
hook, imported into the config module, is run by gunicorn in every worker.
"""

from service.gunicorn_errors import post_worker_init  # noqa: F401 - gunicorn's server hook
