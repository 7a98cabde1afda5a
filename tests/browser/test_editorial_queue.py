"""The review queue in real Chromium: a chief editor features a draft, an editor cannot."""

import re

import pytest

from feed.models import Item
from tests.factories import make_chief_editor, make_editor, make_item, make_source

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-browser-password"


def log_in(page, live_server, username: str, *, then: str) -> None:
    page.goto(f"{live_server.url}/admin/login/?next={then}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"**{then}")


def test_a_chief_editor_features_a_draft_and_readers_see_its_badge(live_server, page, artifacts):
    source = make_source(name="Lumen Lab 博客")
    make_item(title="Already on the stream", source=source)
    make_item(title="Lumen-4 技术报告", status="draft", source=source, summary="上下文更长。")
    make_item(title="Another draft", status="draft", tags=["推理"])
    make_chief_editor(username="zhou", password=PASSWORD)

    log_in(page, live_server, "zhou", then="/admin/feed/item/?status=all")
    page.click('#changelist-filter a[href="?status=draft"]')
    page.wait_for_url("**/admin/feed/item/?status=draft")
    queue = page.locator("#result_list th.field-title").all_inner_texts()
    assert sorted(queue) == ["Another draft", "Lumen-4 技术报告"]
    page.screenshot(path=artifacts / "editorial-queue-drafts.png", full_page=True)

    page.get_by_role("link", name="Lumen-4 技术报告").click()
    page.wait_for_url(re.compile(r".*/admin/feed/item/\d+/change/"))
    # Tags come from the existing ones as the editor types.
    page.locator(".field-tags .select2-selection").click()
    page.locator(".select2-container--open .select2-search__field").fill("推")
    page.locator(".select2-results__option", has_text="推理").click()
    page.screenshot(path=artifacts / "editorial-item-form.png", full_page=True)
    page.click("input[name=_feature]")
    # Back to the queue, still filtered to drafts.
    page.wait_for_url(re.compile(r".*/admin/feed/item/\?status=draft$"))
    assert page.locator(".messagelist .success").count() >= 1

    featured = Item.objects.get(title="Lumen-4 技术报告")
    assert featured.status == "featured"
    assert list(featured.tags.names()) == ["推理"]

    page.goto(live_server.url)
    card = page.locator("article.item", has_text="Lumen-4 技术报告")
    assert card.locator(".badge").inner_text() == "精选"
    assert card.locator(".tags a", has_text="推理").is_visible()
    assert "Another draft" not in page.content()
    page.screenshot(path=artifacts / "editorial-featured-on-stream.png", full_page=True)


def test_an_editor_has_no_publish_button_and_no_workflow_actions(live_server, page, artifacts):
    draft = make_item(title="Waiting for the chief", status="draft")
    make_editor(username="lin", password=PASSWORD)

    log_in(page, live_server, "lin", then="/admin/feed/item/")
    assert page.locator("#result_list th.field-title").all_inner_texts() == [
        "Waiting for the chief"
    ]
    # The desk's other tools (stories, enrichment) stay; none of the moves does.
    offered = page.locator("select[name=action] option").evaluate_all(
        "options => options.map(option => option.value)"
    )
    assert not {"publish", "feature", "unfeature", "reject", "restore"} & set(offered)

    page.get_by_role("link", name="Waiting for the chief").click()
    page.wait_for_url(f"**/admin/feed/item/{draft.pk}/change/")
    assert page.locator("input[name=_save]").is_visible()
    assert page.locator("input[name=_nextdraft]").is_visible()
    assert page.locator("input[name=_publish]").count() == 0
    assert page.locator("input[name=_feature]").count() == 0
    page.screenshot(path=artifacts / "editorial-editor-form.png", full_page=True)


def test_an_editor_previews_a_draft_as_readers_will_see_it(live_server, page):
    draft = make_item(title="Preview me", status="draft", summary="Only staff can read this.")
    make_editor(username="lin", password=PASSWORD)

    log_in(page, live_server, "lin", then=f"/editorial/preview/{draft.pk}/stream/")

    assert page.locator(".preview-banner").is_visible()
    assert page.locator("h3.item-title").inner_text() == "Preview me"
    assert page.locator(".item-summary").inner_text() == "Only staff can read this."
