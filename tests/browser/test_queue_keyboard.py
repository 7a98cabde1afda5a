"""The review queue without a mouse, in real Chromium: j/k move, p publishes, r rejects, o opens."""

import re

import pytest

from editorial.models import ItemLogEntry
from feed.models import Item
from tests.factories import make_chief_editor, make_item, make_source

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-browser-password"
QUEUE = "/admin/feed/item/"


def log_in(page, live_server) -> None:
    make_chief_editor(username="zhou", password=PASSWORD)
    page.goto(f"{live_server.url}/admin/login/?next={QUEUE}")
    page.fill("#id_username", "zhou")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"**{QUEUE}")


def current_title(page) -> str:
    return page.locator("#result_list tr.editorial-current th.field-title").inner_text()


@pytest.fixture
def drafts():
    source = make_source(name="Lumen Lab 博客")
    return [
        make_item(
            title=title,
            status="draft",
            source=source,
            summary="一段足够长的摘要，说明这条消息讲了什么。",
            recommendation="值得一读。",
        )
        for title in ("第三条草稿", "第二条草稿", "第一条草稿")
    ]


def test_a_chief_works_the_queue_from_the_keyboard(live_server, english_page, drafts, artifacts):
    page = english_page
    log_in(page, live_server)
    rows = page.locator("#result_list th.field-title").all_inner_texts()
    assert len(rows) == 3
    # The shortcuts are listed on the page itself.
    assert page.get_by_text("next item").is_visible()

    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert current_title(page) == rows[0]
    page.screenshot(path=artifacts / "queue-keyboard-1280.png", full_page=True)
    # Every column in view at 1280 px: the table does not scroll sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    table = page.locator(".results")
    assert table.evaluate("r => r.scrollWidth <= r.clientWidth")

    with page.expect_navigation():
        page.keyboard.press("p")
    assert Item.objects.get(title=rows[0]).status == "published"
    assert page.locator(".messagelist .success").count() >= 1

    page.keyboard.press("j")
    second = current_title(page)
    with page.expect_navigation():
        page.keyboard.press("r")
    rejected = Item.objects.get(title=second)
    assert rejected.status == "rejected"
    assert ItemLogEntry.objects.get(item=rejected, action="reject").note

    page.keyboard.press("j")
    last = current_title(page)
    page.keyboard.press("o")
    page.wait_for_url(re.compile(r".*/admin/feed/item/\d+/change/"))
    assert page.locator("#id_title").input_value() == last


def test_the_queue_on_a_phone_shows_every_draft_with_its_decisions(
    live_server, english_page, drafts, artifacts
):
    page = english_page
    page.set_viewport_size({"width": 375, "height": 800})
    log_in(page, live_server)

    assert len(page.locator("#result_list th.field-title").all_inner_texts()) == 3
    assert page.locator('button[data-key="p"]').count() == 3
    page.screenshot(path=artifacts / "queue-375.png", full_page=True)
