"""The stream as a reader's browser shows it."""

import pytest

from tests.factories import make_item

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reader_sees_the_stream_by_day_and_opens_an_item(live_server, page, artifacts, clock):
    make_item(title="Lumen-3 发布", summary="长上下文推理成本下降。", tags=["大模型"])
    make_item(title="A draft nobody reviewed", status="draft")

    page.goto(live_server.url)

    assert page.locator("h2.day-heading").count() == 1
    assert page.get_by_role("link", name="Lumen-3 发布").is_visible()
    assert "A draft nobody reviewed" not in page.content()
    page.screenshot(path=artifacts / "stream-foundation-1280.png", full_page=True)

    page.get_by_role("link", name="Lumen-3 发布").click()
    page.wait_for_url("**/items/**")
    assert page.locator("h1").inner_text() == "Lumen-3 发布"
