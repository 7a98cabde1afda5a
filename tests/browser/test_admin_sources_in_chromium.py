"""An editor adds a feed in the admin, tests it, fetches it, and finds the drafts."""

import pytest

from feed.models import Item, Source
from tests.factories import make_item, make_user
from tests.loopback import LoopbackServer, rss, rss_item

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def feed_server(settings):
    settings.FETCH_ALLOW_HOSTS = ["127.0.0.1"]
    settings.FETCH_HOST_GAP = 0.0
    loopback = LoopbackServer()
    loopback.serve("/feed", rss(rss_item(1, title="Agents that plan"), rss_item(2)))
    yield loopback
    loopback.stop()


@pytest.fixture
def page(english_page):
    """The admin in English, so the tests read the same once the Chinese is translated."""
    return english_page


def log_in(page, live_server):
    make_user(username="editor", password="a-long-test-password", is_staff=True, is_superuser=True)
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", "a-long-test-password")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")


def test_an_editor_tests_a_new_feed_then_fetches_it_into_drafts(
    live_server, page, artifacts, feed_server
):
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/feed/source/add/")
    page.fill("#id_name", "Agents weekly")
    page.fill("#id_feed_url", feed_server.url("/feed"))

    page.click("button[name=_test_feed]")
    summary = page.locator(".aitop-feed-test-summary")
    summary.wait_for()

    assert "2 entries can be imported" in summary.inner_text()
    assert page.locator(".aitop-feed-test-entries").get_by_text("Agents that plan").is_visible()
    # The form is still there, as typed, and nothing was saved.
    assert page.input_value("#id_name") == "Agents weekly"
    assert not Source.objects.exists()
    page.screenshot(path=artifacts / "admin-test-this-feed-1280.png", full_page=True)

    page.click("input[name=_continue]")
    page.wait_for_url("**/change/")
    page.click("button.aitop-fetch-now")
    page.wait_for_load_state()

    assert "2 new" in page.locator("ul.messagelist").inner_text()
    assert sorted(Item.objects.values_list("title", "status")) == [
        ("Agents that plan", "draft"),
        ("Story number 2", "draft"),
    ]


def test_an_editor_previews_a_keyword_rule_before_saving_it(live_server, page, artifacts):
    make_item(title="Agents that plan")
    make_item(title="Reagents in chemistry")
    log_in(page, live_server)
    page.goto(f"{live_server.url}/admin/feed/keywordrule/add/")
    page.fill("#id_pattern", "agents")
    page.fill("#id_tag", "智能体")

    page.click("button[name=_preview]")
    count = page.locator(".aitop-rule-preview-count")
    count.wait_for()

    assert "would tag 1 existing item" in count.inner_text()
    assert page.locator(".aitop-rule-preview-sample").inner_text().startswith("Agents that plan")
    page.screenshot(path=artifacts / "admin-keyword-preview-1280.png", full_page=True)
