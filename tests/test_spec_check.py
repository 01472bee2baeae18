"""The response checker (tests/spec_check.py) means what openapi.yaml says: its compiled
JSON Schema refuses and accepts the same bodies as an OpenAPI 3.0 validator would."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator

from tests.spec_check import SpecChecker, as_json_schema, spec


def oas30_accepts(schema: dict[str, Any], value: Any) -> bool:
    return bool(OAS30Validator({**schema, "components": spec()["components"]}).is_valid(value))


def checker_accepts(schema: dict[str, Any], value: Any) -> bool:
    try:
        SpecChecker().validate(schema, value, "body")
    except AssertionError:
        return False
    return True


NULLABLE_ENUM = {"type": "string", "enum": ["a", "b"], "nullable": True}
OBJECT = {"type": "object", "additionalProperties": False, "required": ["type"],
          "properties": {"type": {"type": "string"}, "seat": {"type": "integer", "minimum": 0,
                                                                "nullable": True}}}


@pytest.mark.parametrize("schema, value", [
    (NULLABLE_ENUM, None), (NULLABLE_ENUM, "a"), (NULLABLE_ENUM, "c"),
    ({"type": "string"}, None), ({"type": "string", "format": "date-time"}, "not a date"),
    (OBJECT, {"type": "draw"}), (OBJECT, {"type": "draw", "seat": None}),
    (OBJECT, {"type": "draw", "seat": -1}), (OBJECT, {"type": "draw", "extra": 1}),
    (OBJECT, {"seat": 1}), (OBJECT, {"type": None}),
])
def test_the_checker_agrees_with_an_openapi_validator(schema, value):
    assert checker_accepts(schema, value) == oas30_accepts(schema, value)


def test_a_property_named_like_a_keyword_is_a_property_not_a_keyword():
    converted = as_json_schema({"type": "object", "properties": {
        "nullable": {"type": "boolean"}, "format": {"type": "string", "nullable": True}}})
    assert converted["properties"]["nullable"] == {"type": "boolean"}
    assert converted["properties"]["format"] == {"type": ["string", "null"]}


@pytest.mark.parametrize("name", sorted(spec()["components"]["schemas"]))
def test_every_component_refuses_what_no_component_may_hold(name):
    """An undeclared field, and null where no null is allowed, are refused by both."""
    schema = {"$ref": f"#/components/schemas/{name}"}
    for value in ({"undeclared-field": 1}, None, [None]):
        assert checker_accepts(schema, value) == oas30_accepts(schema, value), value
