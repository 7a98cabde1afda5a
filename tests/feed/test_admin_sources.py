"""Sources and keyword rules in the admin: health, fetch now, test this feed, preview."""

import datetime
import re
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from feed.ingest import ingest_source
from feed.models import FetchAttempt, Item, KeywordRule, Source
from tests.factories import make_item, make_source, make_user
from tests.loopback import rss, rss_item

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:feed_source_changelist"


@pytest.fixture(autouse=True)
def english(admin_client, client):
    """The admin in English, so the tests read the same once the Chinese is translated."""
    for browser in (admin_client, client):
        browser.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


def test_the_source_list_shows_each_sources_health(admin_client, fetching):
    make_source(name="Healthy", last_status="ok", last_fetched_at=timezone.now())
    make_source(
        name="Broken",
        last_status="failed",
        consecutive_failures=7,
        last_error="the server answered HTTP 500 Internal Server Error",
        next_fetch_at=timezone.now() + datetime.timedelta(hours=3),
    )

    page = admin_client.get(reverse(CHANGELIST)).text

    assert "Failing: 7 failures in a row" in page
    assert "the server answered HTTP 500 Internal Server Error" in page
    failing = admin_client.get(reverse(CHANGELIST), {"health": "failing"}).text
    assert "Broken" in failing
    assert "Healthy" not in failing


def test_fetch_now_runs_the_fetch_task_for_the_selected_sources(admin_client, server, fetching):
    server.serve("/feed", rss(rss_item(1), rss_item(2)))
    source = make_source(name="Lab", feed_url=server.url("/feed"))

    response = admin_client.post(
        reverse(CHANGELIST),
        {"action": "fetch_now", "_selected_action": [source.pk]},
        follow=True,
    )

    assert "Lab: OK, 2 new, 0 updated, 0 skipped." in response.text
    assert Item.objects.filter(source=source, status="draft").count() == 2


def test_the_fetch_now_button_on_a_source_fetches_it(admin_client, server, fetching):
    server.serve("/feed", b"", status=404, content_type="text/plain")
    source = make_source(name="Gone", feed_url=server.url("/feed"))
    change = reverse("admin:feed_source_change", args=[source.pk])

    assert 'class="historylink aitop-fetch-now"' in admin_client.get(change).text
    response = admin_client.post(
        reverse("admin:feed_source_fetch_now", args=[source.pk]), follow=True
    )

    assert response.redirect_chain[-1][0] == change
    assert "Gone: Failed — the server answered HTTP 404 Not Found" in response.text
    assert (
        admin_client.get(reverse("admin:feed_source_fetch_now", args=[source.pk])).status_code
        == 405
    )


def test_test_this_feed_shows_what_the_entries_would_become_and_saves_nothing(
    admin_client, server, fetching
):
    server.serve("/feed", rss(rss_item(1, title="First &amp; best"), rss_item(2)))
    make_item(url="https://news.example/stories/2")
    items_before = Item.objects.count()

    response = admin_client.post(
        reverse("admin:feed_source_test_feed"),
        {"feed_url": server.url("/feed"), "name": "unsaved"},
        headers={"X-Requested-With": "fetch"},
    )

    assert response.status_code == 200
    assert "2 entries can be imported" in response.text
    assert "1 new, 1 already here" in response.text
    assert "First &amp; best" in response.text
    assert "<html" not in response.text
    assert Item.objects.count() == items_before
    assert FetchAttempt.objects.count() == 0
    assert not Source.objects.filter(name="unsaved").exists()


def test_test_this_feed_answers_a_plain_post_with_a_whole_page(admin_client, server, fetching):
    server.serve("/feed", b"<html><body>not a feed</body></html>", content_type="text/html")

    response = admin_client.post(
        reverse("admin:feed_source_test_feed"), {"feed_url": server.url("/feed")}
    )

    assert "<html" in response.text
    assert "The feed could not be read:" in response.text
    assert "not a feed" in response.text


def test_test_this_feed_uses_the_network_guard(admin_client, server, settings):
    settings.FETCH_ALLOW_HOSTS = []
    server.serve("/feed", rss(rss_item(1)))

    response = admin_client.post(
        reverse("admin:feed_source_test_feed"),
        {"feed_url": server.url("/feed")},
        headers={"X-Requested-With": "fetch"},
    )

    assert "refused to connect to 127.0.0.1" in response.text
    assert server.requests == []


def test_only_editors_who_may_change_sources_can_test_a_feed(client, server, fetching):
    viewer = make_user(perms=["feed.view_source"], is_staff=True)
    client.force_login(viewer)

    response = client.post(reverse("admin:feed_source_test_feed"), {"feed_url": server.url("/")})

    assert response.status_code == 403
    assert server.requests == []


def test_the_change_page_has_the_test_button_and_the_fetch_history(admin_client, server, fetching):
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(feed_url=server.url("/feed"))
    ingest_source(source)

    page = admin_client.get(reverse("admin:feed_source_change", args=[source.pk])).text

    assert 'name="_test_feed"' in page
    assert 'class="aitop-fetches"' in page
    assert "All fetches of this source" in page
    history = admin_client.get(
        reverse("admin:feed_fetchattempt_changelist"), {"source__id__exact": source.pk}
    )
    assert history.status_code == 200
    assert "1 fetch" in history.text


def test_sources_can_be_switched_off_and_on_from_the_list(admin_client):
    source = make_source(is_active=True)

    admin_client.post(
        reverse(CHANGELIST), {"action": "deactivate", "_selected_action": [source.pk]}
    )
    source.refresh_from_db()
    assert source.is_active is False
    admin_client.post(reverse(CHANGELIST), {"action": "activate", "_selected_action": [source.pk]})
    source.refresh_from_db()
    assert source.is_active is True


def test_a_keyword_rule_preview_counts_and_shows_items_without_saving(admin_client):
    make_item(title="Open weights for a new LLM", status="draft")
    make_item(title="An LLM benchmark")
    make_item(title="Nothing relevant")

    response = admin_client.post(
        reverse("admin:feed_keywordrule_preview"),
        {"pattern": "LLM", "tag": "大模型"},
        headers={"X-Requested-With": "fetch"},
    )

    assert "This rule would tag 2 existing items with “大模型”." in response.text
    assert "Open weights for a new LLM" in response.text
    assert "Nothing relevant" not in response.text
    assert KeywordRule.objects.count() == 0


def test_save_and_apply_tags_the_existing_items(admin_client):
    item = make_item(title="Agents that plan")

    response = admin_client.post(
        reverse("admin:feed_keywordrule_add"),
        {"pattern": "agents", "tag": "智能体", "is_active": "on", "_apply": "1"},
        follow=True,
    )

    assert "“agents → 智能体” tagged 1 existing item." in response.text
    assert list(item.tags.names()) == ["智能体"]
    assert 'name="_apply"' in admin_client.get(reverse("admin:feed_keywordrule_add")).text


def test_a_feed_url_that_is_not_http_is_refused_by_the_form(admin_client):
    response = admin_client.post(
        reverse("admin:feed_source_add"),
        {
            "name": "FTP feed",
            "slug": "ftp-feed",
            "kind": "blog",
            "feed_url": "ftp://ftp.example/feed.xml",
            "fetch_interval": "01:00:00",
            "weight": 50,
        },
    )

    assert response.status_code == 200
    assert "Only http and https URLs are fetched, not ftp." in response.text
    assert not Source.objects.exists()


# --- "test this feed" as a task, with a database queue as in production ---------------


@pytest.fixture
def queued_tasks(settings):
    """The database task backend: enqueueing stores a task that only a worker runs."""
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
    }


def poll_url(html: str) -> str:
    return re.search(r'data-aitop-poll="([^"]+)"', html).group(1)


def run_worker(*, finish: bool = True) -> None:
    """What `db_worker` does with each queued task, inside the test's own transaction."""
    for row in DBTaskResult.objects.ready():
        row.claim("test-worker")
        if finish:
            queued = row.task_result
            row.set_successful(row.task.call(*queued.args, **queued.kwargs))


def test_a_feed_is_tested_by_a_worker_while_the_form_follows_its_progress(
    admin_client, server, fetching, queued_tasks
):
    server.serve("/feed", rss(rss_item(1), rss_item(2), rss_item(3)))
    fragment = {"X-Requested-With": "fetch"}

    queued = admin_client.post(
        reverse("admin:feed_source_test_feed"), {"feed_url": server.url("/feed")}, headers=fragment
    )
    # The web request only queued it: nothing was fetched yet.
    assert server.requests == []
    assert "Waiting for a worker to fetch the feed…" in queued.text
    waiting = admin_client.get(poll_url(queued.text), headers=fragment)
    assert "Waiting for a worker" in waiting.text

    run_worker(finish=False)
    running = admin_client.get(poll_url(queued.text), headers=fragment)
    assert "Fetching and reading the feed…" in running.text
    DBTaskResult.objects.update(status="READY", worker_ids=[])
    run_worker()
    done = admin_client.get(poll_url(queued.text), headers=fragment)

    assert server.hits("/feed") == 1
    assert "data-aitop-poll" not in done.text
    assert "3 entries can be imported" in done.text
    assert "Story number 2" in done.text
    assert Item.objects.count() == 0  # a test writes nothing


def test_without_javascript_the_progress_page_refreshes_itself(
    admin_client, server, fetching, queued_tasks
):
    server.serve("/feed", rss(rss_item(1)))

    page = admin_client.post(
        reverse("admin:feed_source_test_feed"), {"feed_url": server.url("/feed")}
    )

    assert '<meta http-equiv="refresh" content="2; url=/admin/feed/source/test-feed/' in page.text
    run_worker()
    result = admin_client.get(poll_url(page.text))
    assert "1 entry can be imported" in result.text
    assert 'http-equiv="refresh"' not in result.text


def test_a_test_nobody_runs_says_that_a_worker_is_needed(
    admin_client, server, fetching, queued_tasks
):
    queued = admin_client.post(
        reverse("admin:feed_source_test_feed"),
        {"feed_url": server.url("/feed")},
        headers={"X-Requested-With": "fetch"},
    )
    later = timezone.now() + datetime.timedelta(seconds=30)

    with mock.patch("django.utils.timezone.now", return_value=later):
        waiting = admin_client.get(poll_url(queued.text), headers={"X-Requested-With": "fetch"})

    assert "No worker has taken it yet" in waiting.text


def test_an_unknown_test_is_a_404_and_others_may_not_look(admin_client, client, queued_tasks):
    assert admin_client.get("/admin/feed/source/test-feed/not-a-task/").status_code == 404
    client.force_login(make_user(perms=["feed.view_source"], is_staff=True))
    assert client.get("/admin/feed/source/test-feed/not-a-task/").status_code == 403
