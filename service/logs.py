"""Log lines as JSON objects, one a line, each with the request id it was written for.

Every process logs this way: the API under gunicorn (``service.gunicorn_conf`` hands
gunicorn's own loggers, its access log included, to the formatters here), ``python -m
workers`` and the embedded server. A line::

    {"time": "2025-01-02T03:04:05+0000", "level": "WARNING", "logger": "rummy.webhooks",
     "process": 123, "message": "...", "request_id": "4f0c..."}

``request_id`` is the request's (``service.correlation``; null for work no request
caused); a worker running an RQ job adds ``job_id``. An access-log line adds ``remote``,
``method``, ``path`` (never the query string: a stream's ``?ticket=`` is a credential),
``status``, ``bytes``, ``duration_ms`` and ``user_agent``; its ``request_id`` is the
``X-Request-Id`` the answer carried.

python-json-logger does the encoding (exceptions and ``extra=`` fields included), so this
module only says which fields a line has.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import IO, Any

from pythonjsonlogger.json import JsonFormatter

from service import correlation

FIELDS = ("asctime", "levelname", "name", "process", "message", "request_id")
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"


class Correlated(logging.Filter):
    """Puts the bound request id (and job id) on every record its handler writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = correlation.current()
        job = correlation.current_job()
        if job is not None:
            record.job_id = job
        return True


class JsonLines(JsonFormatter):
    """One JSON object a line with ``FIELDS`` (renamed as ``RENAMED``) and any extras."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(list(FIELDS), rename_fields=dict(RENAMED), datefmt=DATE_FORMAT)


ACCESS_ATOMS = {"remote": "h", "method": "m", "path": "U", "status": "s", "bytes": "B",
                "duration_ms": "M", "user_agent": "a", "request_id": "{x-request-id}o"}
"""gunicorn's access-log atoms each access line carries, by field name."""
NUMBERS = frozenset({"status", "bytes", "duration_ms"})
ACCESS_FORMAT = '%(h)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms %({x-request-id}o)s'
"""gunicorn's ``access_log_format``: the line's ``message`` (the fields are its own)."""


class AccessJsonLines(JsonLines):
    """gunicorn's access log as JSON lines: the atoms of ``ACCESS_ATOMS`` as fields."""

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord,
                   message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        atoms: Mapping[str, Any] = record.args if isinstance(record.args, Mapping) else {}
        for field, atom in ACCESS_ATOMS.items():
            try:
                value = atoms[atom]
            except (KeyError, TypeError):
                continue
            if value in (None, "-"):
                value = None
            elif field in NUMBERS and str(value).isdigit():
                value = int(str(value))
            log_data[field] = value


def handler(stream: IO[str] | None = None, formatter: logging.Formatter | None = None
            ) -> logging.Handler:
    """A handler writing JSON lines (``JsonLines``, or ``formatter``) to ``stream``
    (stderr), every record with its request id."""
    out = logging.StreamHandler(stream or sys.stderr)
    out.setFormatter(formatter or JsonLines())
    out.addFilter(Correlated())
    return out


def configure(level: int = logging.INFO) -> None:
    """JSON lines from every logger of this process, at ``level``: the root logger gets
    ``handler()`` unless a JSON handler is on it already (gunicorn's master set one up from
    ``gunicorn_config`` before it forked this worker)."""
    root = logging.getLogger()
    root.setLevel(level)
    if not any(isinstance(h.formatter, JsonLines) for h in root.handlers):
        for old in list(root.handlers):
            root.removeHandler(old)
        root.addHandler(handler())


def gunicorn_config() -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: its error log and the root logger (every line the
    app writes) as JSON on stderr, its access log as JSON on stdout."""
    json_handler = {"class": "logging.StreamHandler", "formatter": "json",
                    "filters": ["correlated"], "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"correlated": {"()": Correlated}},
        "formatters": {"json": {"()": JsonLines}, "access": {"()": AccessJsonLines}},
        "handlers": {
            "json": json_handler,
            "access": {**json_handler, "formatter": "access", "stream": "ext://sys.stdout"},
        },
        "root": {"level": "INFO", "handlers": ["json"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["json"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
        },
    }
