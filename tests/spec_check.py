"""Hold real responses to openapi.yaml: the operation exists, the status is documented for it,
and the body is valid against the documented schema, with no field the spec does not declare.

Used by the contract tests (tests/service/test_contract.py) and the generated-client test
(tests/clients). ``additionalProperties: false`` is how the spec says "no other field"; the
checker refuses a spec object that leaves it out, so a checked body can never carry an
undeclared field unnoticed.

Bodies are validated by ``jsonschema_rs`` (compiled once per documented schema) against the
spec's schemas as JSON Schema: OpenAPI 3.0's ``nullable`` becomes a ``"null"`` type (an
``enum`` still lists ``null`` itself, as OpenAPI 3.0.3 says), and ``format`` stays
unchecked, as openapi-schema-validator leaves it. A played match checks thousands of
answers, and a pure-Python validator spent more time on them than the server spent
answering.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import yaml
from openapi_schema_validator import OAS30Validator

SPEC_FILE = Path(__file__).resolve().parents[1] / "openapi.yaml"


@cache
def spec() -> dict[str, Any]:
    return yaml.safe_load(SPEC_FILE.read_text())


@cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    """Each documented path as a regular expression over concrete URLs."""
    routes = []
    for template in spec()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        routes.append((re.compile(f"^{pattern}$"), template))
    return routes


def template_of(url: str) -> str:
    """The documented path a concrete URL (query string allowed) belongs to."""
    path = url.split("?", 1)[0]
    found = [template for pattern, template in _routes() if pattern.match(path)]
    assert found, f"{path} is no documented path"
    return min(found, key=lambda t: t.count("{"))  # a literal segment wins over a parameter


def open_objects(schema: Any, where: str = "") -> list[str]:
    """Every object schema in ``schema`` with properties but no ``additionalProperties``."""
    found: list[str] = []
    if isinstance(schema, dict):
        if "properties" in schema and "additionalProperties" not in schema:
            found.append(where or "(root)")
        for key, value in schema.items():
            found += open_objects(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found += open_objects(value, f"{where}/{index}")
    return found


def as_json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema object as the JSON Schema (draft 4) that means the same for a
    response body: ``nullable`` folded into ``type``, ``format`` dropped. Only
    schema positions are rewritten, never a property that happens to be named ``type``."""
    if not isinstance(schema, dict):
        return schema
    out = {key: value for key, value in schema.items() if key not in ("nullable", "format")}
    if "properties" in schema:
        out["properties"] = {name: as_json_schema(part)
                             for name, part in schema["properties"].items()}
    for key in ("items", "not", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out[key] = as_json_schema(schema[key])
    for key in ("allOf", "anyOf", "oneOf"):
        if key in schema:
            out[key] = [as_json_schema(part) for part in schema[key]]
    if schema.get("nullable") and "type" in schema:
        out["type"] = [schema["type"], "null"]
    return out


@cache
def _components() -> dict[str, Any]:
    components = spec()["components"]
    return {**components, "schemas": {name: as_json_schema(schema)
                                      for name, schema in components["schemas"].items()}}


_VALIDATORS: dict[int, tuple[dict[str, Any], Any]] = {}


def _validator(schema: dict[str, Any]) -> Any:
    """The compiled validator of one documented schema (kept with the schema, so its id is
    never another's)."""
    known = _VALIDATORS.get(id(schema))
    if known is None or known[0] is not schema:
        root = {**as_json_schema(schema), "components": _components()}
        known = _VALIDATORS[id(schema)] = (schema, jsonschema_rs.Draft4Validator(
            root, validate_formats=False))
    return known[1]


class SpecChecker:
    """Validates responses and counts them by operation and status."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str, int]] = Counter()

    def response_schema(self, method: str, url: str, status: int,
                        content_type: str = "application/json") -> dict[str, Any] | None:
        """The documented schema of that answer (None: documented without a JSON body)."""
        template = template_of(url)
        operation = spec()["paths"][template].get(method.lower())
        assert operation is not None, f"{method} {template} is not documented"
        responses = operation["responses"]
        documented = responses.get(str(status)) or responses.get("default")
        assert documented is not None, (
            f"{method} {template} answered {status}, which the spec does not list "
            f"({sorted(responses)})")
        documented = self._resolve(documented)
        content = documented.get("content") or {}
        if content_type not in content:
            assert not content or status == 204, (
                f"{method} {template} {status}: {content_type} is not documented "
                f"({sorted(content)})")
            return None
        return content[content_type].get("schema")

    def check(self, method: str, url: str, status: int, body: Any,
              content_type: str = "application/json") -> None:
        """Assert the answer is documented and its body matches the spec."""
        schema = self.response_schema(method, url, status, content_type)
        self.counts[(method.upper(), template_of(url), status)] += 1
        if schema is None or content_type != "application/json":
            return
        self.validate(schema, body, f"{method} {url} {status}")

    def validate(self, schema: dict[str, Any], value: Any, what: str) -> None:
        try:
            _validator(schema).validate(value)
        except jsonschema_rs.ValidationError as exc:
            path = "/".join(map(str, exc.instance_path))
            raise AssertionError(f"{what}: at {path or '(body)'}: {exc.message}"[:2000]) from None
        if PRESENCE is not None:
            _record(schema, value, "(inline)")

    @staticmethod
    def _resolve(item: dict[str, Any]) -> dict[str, Any]:
        ref = item.get("$ref")
        if not ref:
            return item
        node: Any = spec()
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return dict(node)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class CheckedClient:
    """A Flask test client whose every JSON answer is checked against the spec."""

    def __init__(self, client: Any, checker: SpecChecker) -> None:
        self.client = client
        self.checker = checker

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        response = self.client.open(url, method=method, **kwargs)
        content_type = response.mimetype or "application/json"
        body = response.get_json(silent=True) if content_type == "application/json" else None
        self.checker.check(method, url, response.status_code, body, content_type)
        return response

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> Any:
        return self.request("POST", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Any:
        return self.request("DELETE", url, **kwargs)


PRESENCE: dict[str, Counter[str]] | None = {} if os.environ.get("SPEC_PRESENCE") else None
"""With SPEC_PRESENCE=1: how often each component's fields were present (to find the
fields that are always there, which the spec should mark ``required``)."""


def _record(schema: dict[str, Any], value: Any, name: str) -> None:
    assert PRESENCE is not None
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = spec()["components"]["schemas"][name]
    for part in schema.get("allOf", ()):
        _record(part, value, name)
    if "oneOf" in schema:
        for option in schema["oneOf"]:
            if OAS30Validator({**option, "components": spec()["components"]}).is_valid(value):
                _record(option, value, name)
                return
    if isinstance(value, dict) and "properties" in schema:
        seen = PRESENCE.setdefault(name, Counter())
        seen["(seen)"] += 1
        for key, item in value.items():
            seen[key] += 1
            if key in schema["properties"]:
                _record(schema["properties"][key], item, f"{name}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for item in value:
            _record(schema["items"], item, name)


def presence_report() -> str:
    """Per component: fields present in every instance but not required, and vice versa."""
    lines = []
    for name, seen in sorted((PRESENCE or {}).items()):
        schema = spec()["components"]["schemas"].get(name, {})
        required = set(schema.get("required", ()))
        always = {k for k, n in seen.items() if n == seen["(seen)"] and k != "(seen)"}
        lines.append(f"{name} ({seen['(seen)']}): always, not required: "
                     f"{sorted(always - required)}; required, not always: "
                     f"{sorted(required - always)}; sometimes: "
                     f"{sorted(k for k in seen if k not in always and k != '(seen)')}")
    return "\n".join(lines)
