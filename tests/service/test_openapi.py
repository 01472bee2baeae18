"""openapi.yaml is generated from the schemas (`make openapi`); it must not drift from them."""

from __future__ import annotations

import re
from pathlib import Path

import fakeredis
import yaml

from service.api.app import create_app
from service.config import Settings

SPEC_FILE = Path(__file__).resolve().parents[2] / "openapi.yaml"


def generated_spec() -> dict:
    app = create_app(Settings(redis_url="redis://unused"), client=fakeredis.FakeRedis())
    (api,) = [entry["ext_obj"] for entry in app.extensions["flask-smorest"]["apis"].values()]
    with app.app_context():
        return api.spec.to_dict()


def test_the_committed_openapi_yaml_matches_the_code():
    committed = yaml.safe_load(SPEC_FILE.read_text())
    assert committed == generated_spec(), "openapi.yaml is stale: run `make openapi`"


def test_every_route_is_documented():
    paths = generated_spec()["paths"]
    for path in ("/v1/variants", "/v1/matches", "/v1/matches/{match_id}",
                 "/v1/matches/{match_id}/actions", "/v1/matches/{match_id}/events",
                 "/v1/matches/{match_id}/stream", "/healthz"):
        assert path in paths


def test_the_actions_reference_lists_every_move_error_the_rules_raise():
    source = (Path(__file__).resolve().parents[2] / "domain" / "gin" / "rules.py").read_text()
    raised = set(re.findall(r'RuleError\(\s*"([a-z_]+)"', source))
    internal = {"invalid_deck", "nothing_to_score", "nothing_to_deal", "match_not_finished",
                "unknown_command"}
    described = generated_spec()["paths"]["/v1/matches/{match_id}/actions"]["post"]
    assert raised - internal <= set(re.findall(r"``([a-z_]+)``", described["description"]))


def test_every_response_documents_the_request_id_and_metrics_stay_out():
    """Every answer carries ``X-Request-Id`` (service/api/observed.py); ``/metrics`` is an
    operator's endpoint in Prometheus's format, left out of the document on purpose."""
    spec = generated_spec()
    assert "/metrics" not in spec["paths"]
    header = {"$ref": "#/components/headers/X_REQUEST_ID"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    name = response["$ref"].rsplit("/", 1)[1]
                    response = spec["components"]["responses"][name]
                assert response["headers"]["X-Request-Id"] == header, (path, method, status)
