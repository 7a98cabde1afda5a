"""A fetch's error is stored in English and read in the admin's language (feed.ingest.wording)."""

import pytest
from django.urls import reverse
from django.utils import translation

from feed.ingest import ingest_source
from feed.ingest.wording import recorded_text
from feed.models import FetchAttempt
from tests.factories import make_editor, make_source

pytestmark = pytest.mark.django_db

ZH = {"accept-language": "zh-hans"}
EN = {"accept-language": "en"}


def test_a_fetch_error_is_shown_in_chinese_on_every_admin_page_that_shows_it(
    client, server, fetching
):
    server.serve("/feed", b"", status=500, content_type="text/plain")
    source = make_source(name="Lab", feed_url=server.url("/feed"))
    ingest_source(source)
    client.force_login(make_editor())

    pages = {
        "list": reverse("admin:feed_source_changelist"),
        "source": reverse("admin:feed_source_change", args=[source.pk]),
        "fetches": reverse("admin:feed_fetchattempt_changelist"),
        "fetch": reverse("admin:feed_fetchattempt_change", args=[FetchAttempt.objects.get().pk]),
        "dashboard": "/admin/",
    }
    for name, url in pages.items():
        chinese = client.get(url, headers=ZH).text
        assert "服务器返回 HTTP 500 Internal Server Error" in chinese, name
        assert "the server answered" not in chinese, name
        english = client.get(url, headers=EN).text
        assert "the server answered HTTP 500 Internal Server Error" in english, name


def test_the_stored_error_stays_english_whatever_the_language_at_fetch_time(server, fetching):
    server.serve("/feed", b"", status=404, content_type="text/plain")
    source = make_source(feed_url=server.url("/feed"))

    with translation.override("zh-hans"):
        ingest_source(source)

    source.refresh_from_db()
    assert source.last_error == "the server answered HTTP 404 Not Found"
    assert FetchAttempt.objects.get().error == source.last_error


def test_a_refusal_of_the_network_guard_reads_in_chinese_with_its_advice(server, fetching):
    fetching.FETCH_ALLOW_HOSTS = []
    source = make_source(feed_url=server.url("/feed"))

    ingest_source(source)

    source.refresh_from_db()
    assert source.last_error.startswith("refused to connect to 127.0.0.1: not a public address (")
    with translation.override("zh-hans"):
        assert recorded_text(source.last_error) == (
            "拒绝连接 127.0.0.1：不是公网地址（本机或其所在网络上的订阅源，"
            "只有其主机列在 AITOP_FETCH_ALLOW_HOSTS 中时才会抓取）"
        )
    assert server.requests == []


def test_a_text_that_no_wording_made_is_shown_as_stored():
    with translation.override("zh-hans"):
        assert recorded_text("HTTP 503 from the feed") == "HTTP 503 from the feed"
