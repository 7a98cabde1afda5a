"""The schema and the docs: served by us, assets included, so they work without the internet."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_schema_is_openapi_3_and_lists_every_endpoint(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert {
        "/api/v1/items/",
        "/api/v1/items/{id}/",
        "/api/v1/items/{id}/publish/",
        "/api/v1/items/{id}/feature/",
        "/api/v1/items/{id}/unfeature/",
        "/api/v1/items/{id}/reject/",
        "/api/v1/items/{id}/restore/",
        "/api/v1/sources/",
        "/api/v1/sources/{slug}/",
        "/api/v1/tags/",
        "/api/v1/days/",
    } <= set(schema["paths"])


def test_every_operation_has_a_summary_and_documents_its_errors(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), (method, path)
            assert {"400", "401", "429"} <= set(operation["responses"]), (method, path)
            for status, answer in operation["responses"].items():
                if status.startswith("4"):
                    content = answer["content"]["application/json"]
                    assert content["schema"] == {"$ref": "#/components/schemas/Error"}
                    assert content.get("examples"), (method, path, status)
            for parameter in operation.get("parameters", []):
                assert parameter.get("description"), (method, path, parameter["name"])


@pytest.mark.parametrize("address", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_load_their_scripts_from_our_own_static_files(api, address):
    page = api.get(address)

    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources, "the page loads no assets at all"
    assert all(not src.startswith(("http://", "https://", "//")) for src in sources), sources
    for src in sources:
        if src.endswith((".js", ".css")):
            assert api.get(src).status_code == 200, src
