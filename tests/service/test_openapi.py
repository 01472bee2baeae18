"""openapi.yaml is generated from the schemas (`make openapi`); it must not drift from them."""

from __future__ import annotations

import json
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


ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"docs/rules\.md(?: section)? (\d+(?:\.\d+)?)")


def rule_book_sections() -> set[str]:
    headings = re.findall(r"^#+ (\d+(?:\.\d+)?)[. ]", (ROOT / "docs" / "rules.md").read_text(),
                          flags=re.MULTILINE)
    return set(headings)


def texts_players_and_clients_read() -> dict[str, str]:
    """The spec (option descriptions and error docs included), what ``/v1/variants`` serves,
    and every source file whose strings become error messages or pages."""
    app = create_app(Settings(redis_url="redis://unused"), client=fakeredis.FakeRedis())
    texts = {"openapi spec": json.dumps(generated_spec()),
             "GET /v1/variants": app.test_client().get("/v1/variants").get_data(as_text=True)}
    for folder, pattern in (("domain", "*.py"), ("service", "*.py"), ("workers", "*.py"),
                            ("service/web", "*.js"), ("service/web", "*.html")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            texts[str(path.relative_to(ROOT))] = path.read_text()
    return texts


def test_the_rule_book_is_cited_by_its_real_name_and_sections():
    sections = rule_book_sections()
    assert {"0", "1.4", "2.6", "3.5"} <= sections
    for where, text in texts_players_and_clients_read().items():
        assert "RULES.md" not in text, f"{where} cites RULES.md; the rule book is docs/rules.md"
        for section in CITATION.findall(text):
            assert section in sections, f"{where} cites docs/rules.md {section}, not a section"
