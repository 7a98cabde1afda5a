"""Hostile or broken documents, served over HTTP and fetched: what ends up in the database."""

import datetime
import json

import pytest

from feed.ingest import Outcome, ingest_source
from feed.models import Item
from tests.factories import make_source
from tests.feed.hostile import BILLION_LAUGHS, EXTERNAL_ENTITY, quadratic_blowup
from tests.loopback import rss, rss_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    "bomb",
    [BILLION_LAUGHS, quadratic_blowup(), EXTERNAL_ENTITY],
    ids=["laughs", "quadratic", "xxe"],
)
def test_an_xml_bomb_is_refused_and_earlier_items_stay(bomb, server, fetching):
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(feed_url=server.url("/feed"))
    ingest_source(source, now=NOW)

    server.serve("/feed", bomb)
    result = ingest_source(source, now=NOW + datetime.timedelta(hours=1))

    assert result.status == Outcome.FAILED
    assert result.error.startswith("refused:")
    assert list(Item.objects.values_list("url", flat=True)) == ["https://news.example/stories/1"]


def test_nul_bytes_and_control_characters_never_reach_the_database(server, fetching):
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "items": [
            {
                "id": "nul\u0000-1",
                "url": "https://news.example/nul",
                "title": "Title with a NUL\u0000 and a bell\u0007",
                "summary": "Summary\u0000 text.",
                "content_html": "<p>Body\u0000</p>",
                "authors": [{"name": "Ann\u0000"}],
            }
        ],
    }
    server.serve("/feed", json.dumps(feed).encode(), content_type="application/feed+json")
    source = make_source(feed_url=server.url("/feed"))

    result = ingest_source(source, now=NOW)

    item = Item.objects.get()
    assert result.new == 1
    assert (item.guid, item.title, item.summary, item.body, item.authors) == (
        "nul-1",
        "Title with a NUL and a bell",
        "Summary text.",
        "<p>Body</p>",
        "Ann",
    )


def test_invalid_utf8_is_imported_with_a_warning(server, fetching):
    body = (
        b'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>'
        b"<item><title>Caf\xe9 \xff opens</title><link>https://news.example/cafe</link></item>"
        b"<item><title>Fine</title><link>https://news.example/fine</link></item>"
        b"</channel></rss>"
    )
    server.serve("/feed", body, content_type="application/rss+xml; charset=utf-8")
    source = make_source(feed_url=server.url("/feed"))

    result = ingest_source(source, now=NOW)

    source.refresh_from_db()
    assert (result.status, result.new) == (Outcome.PARTIAL, 2)
    assert source.last_warning
    assert Item.objects.get(url="https://news.example/fine").title == "Fine"


def test_a_wrong_declared_encoding_gives_readable_titles(server, fetching):
    # The server says UTF-8, the document says UTF-8, the bytes are windows-1252.
    body = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>'
        "<item><title>Naïve “quotes” café</title><link>https://news.example/q</link></item>"
        "</channel></rss>"
    ).encode("windows-1252")
    server.serve("/feed", body, content_type="application/rss+xml; charset=utf-8")

    result = ingest_source(make_source(feed_url=server.url("/feed")), now=NOW)

    assert result.new == 1
    assert Item.objects.get().title == "Naïve “quotes” café"


def test_script_and_onerror_in_content_are_gone_when_stored(server, fetching):
    item = (
        "<item><title>Hostile</title><link>https://news.example/hostile</link>"
        "<description><![CDATA[<p>Text<script>alert(1)</script>"
        '<img src="https://img.example/a.png" onerror="alert(2)">'
        '<a href="javascript:alert(3)" onclick="alert(4)">x</a></p>]]></description></item>'
    )
    server.serve("/feed", rss(item))

    ingest_source(make_source(feed_url=server.url("/feed")), now=NOW)

    stored = Item.objects.get()
    assert stored.body == (
        '<p>Text<img src="https://img.example/a.png"><a rel="noopener nofollow">x</a></p>'
    )
    assert "alert" not in stored.summary
