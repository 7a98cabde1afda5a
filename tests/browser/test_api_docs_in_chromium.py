"""The API docs as an integration developer's browser shows them, with no internet at all."""

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def _offline(page, live_server) -> list[str]:
    """Refuse every request that leaves the live server; return the refused URLs."""
    local = urlsplit(live_server.url).netloc
    refused: list[str] = []

    def route(route):
        if urlsplit(route.request.url).netloc == local:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    return refused


def test_swagger_ui_shows_the_operations_offline(live_server, page, artifacts):
    refused = _offline(page, live_server)

    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".opblock-summary").first.wait_for()

    summaries = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/items/" in summaries
    assert "/api/v1/items/{id}/publish/" in summaries
    assert refused == []
    page.screenshot(path=artifacts / "api-docs-swagger.png", full_page=False)


def test_redoc_shows_the_operations_offline(live_server, page, artifacts):
    refused = _offline(page, live_server)

    page.goto(f"{live_server.url}/api/redoc/")
    page.locator("h2", has_text="Submit an item").first.wait_for()

    assert page.locator("h2", has_text="List published items").first.is_visible()
    assert refused == []
    page.screenshot(path=artifacts / "api-docs-redoc.png", full_page=False)
