"""Entries with no usable link of their own still arrive, once each, with a stable identity.

RSS 0.9x items with neither link nor guid, entries that are almost all
unsafe markup, odd base URLs, Atom entries with only a tag: id, JSON Feed
items without `url`, and entries of one feed that share one link. The
files are from the shared corpus (tests/data/README.md).
"""

import datetime
import json
from pathlib import Path

import pytest

from feed.ingest import Outcome, ingest_source
from feed.ingest.normalise import entries_normalise
from feed.ingest.parse import RawEntry
from feed.models import Item
from tests.factories import make_source

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "data" / "feeds"
NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)


def fetch_twice(server, name: str, **serve) -> tuple[list[tuple[str, str, str]], list]:
    """Serve `name`, fetch it twice; the items (title, url, guid) and both results."""
    url = server.serve("/feed", (DATA / name).read_bytes(), **serve)
    source = make_source(feed_url=url)
    results = [
        ingest_source(source, now=NOW),
        ingest_source(source, now=NOW + datetime.timedelta(hours=2)),
    ]
    items = list(
        Item.objects.filter(source=source).order_by("id").values_list("title", "url", "guid")
    )
    return items, results


def feed_url(server) -> str:
    return server.url("/feed")


def test_an_entry_that_is_a_script_and_two_words_arrives_once(server, fetching):
    items, results = fetch_twice(
        server, "feedparser__wellformed__sanitize__entry_content_script.xml"
    )

    ((title, url, guid),) = items
    assert title == "safe description"
    assert url.startswith(feed_url(server) + "#item-")
    assert guid.startswith("content:")
    assert [(r.status, r.new, r.unchanged, r.skipped) for r in results] == [
        (Outcome.OK, 1, 0, 0),
        (Outcome.OK, 0, 1, 0),
    ]
    assert Item.objects.get().body == "safe description"


def test_an_entry_that_is_only_an_image_with_an_onclick_arrives_without_the_handler(
    server, fetching
):
    items, results = fetch_twice(
        server, "feedparser__wellformed__sanitize__entry_content_onclick.xml"
    )

    ((title, url, _guid),) = items
    assert url.startswith(feed_url(server) + "#item-")
    assert title == url.split("://", 1)[1]
    assert Item.objects.get().body == '<img src="http://www.ragingplatypus.com/i/cam-full.jpg">'
    assert [r.new for r in results] == [1, 0]


def test_an_entry_under_a_javascript_base_arrives_with_its_links_resolved_against_the_feed(
    server, fetching
):
    items, results = fetch_twice(server, "feedparser__wellformed__base__unsafe_base.xml")

    assert [title for title, _, _ in items] == ["Example test"]
    assert [r.new for r in results] == [1, 0]


def test_an_atom_entry_with_only_a_tag_id_is_known_by_it(server, fetching):
    items, results = fetch_twice(server, "rss-parser__missing-fields.atom")

    ((title, url, guid),) = items
    assert (title, guid) == ("tag:github.com,2008:Repository/11167738/v3.9.0",) * 2
    assert url.startswith(feed_url(server) + "#item-")
    assert [r.new for r in results] == [1, 0]


def test_an_rss_item_known_only_by_a_tag_guid_arrives(server, fetching):
    items, results = fetch_twice(server, "feedparser__wellformed__rss__entity_in_doctype.xml")

    ((_title, url, guid),) = items
    assert guid.startswith("tag:example.com,2006-05-04:")
    assert url.startswith(feed_url(server) + "#item-")
    assert [r.new for r in results] == [1, 0]


def test_two_entries_that_differ_only_by_the_fragment_of_their_link_both_arrive(server, fetching):
    items, results = fetch_twice(server, "feed-rs__rss2__rss_2.0_spec_1.xml")

    assert [url for _, url, _ in items] == [
        "http://scriptingnews.userland.com/backissues/2002/09/29",
        "http://scriptingnews.userland.com/backissues/2002/09/29#When:6:52:02PM",
    ]
    assert [(r.new, r.unchanged) for r in results] == [(2, 0), (0, 2)]


def test_sixteen_entries_whose_links_all_resolve_to_one_page_all_arrive(server, fetching):
    items, results = fetch_twice(server, "rome__atom_1.0_b.xml")

    assert len(items) == len({url for _, url, _ in items}) == 16
    assert [(r.new, r.skipped) for r in results] == [(16, 0), (0, 0)]


def test_an_rss_0_92_item_with_neither_link_nor_guid_arrives_and_is_found_again(server, fetching):
    body = (
        b'<?xml version="1.0"?><rss version="0.92"><channel><title>Old</title>'
        b"<link>https://old.example/</link><description>d</description>"
        b"<item><title>Only a title</title><description>And some text.</description></item>"
        b"<item><description>Text alone, no title at all.</description></item>"
        b"</channel></rss>"
    )
    url = server.serve("/feed", body)
    source = make_source(feed_url=url)

    first = ingest_source(source, now=NOW)
    second = ingest_source(source, now=NOW + datetime.timedelta(hours=2))

    assert (first.new, second.new, second.unchanged) == (2, 0, 2)
    assert sorted(Item.objects.values_list("title", flat=True)) == [
        "Only a title",
        "Text alone, no title at all.",
    ]


def test_a_json_feed_item_without_url_is_known_by_its_id(server, fetching):
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Notes",
        "items": [
            {"id": "note-1", "content_text": "A note with no page of its own."},
            {"id": "note-2", "title": "Second", "content_html": "<p>Hi</p>"},
        ],
    }
    url = server.serve("/feed", json.dumps(feed).encode(), content_type="application/feed+json")
    source = make_source(feed_url=url)

    first = ingest_source(source, now=NOW)
    second = ingest_source(source, now=NOW + datetime.timedelta(hours=2))

    assert (first.new, second.new, second.unchanged) == (2, 0, 2)
    assert sorted(Item.objects.values_list("guid", "title")) == [
        ("note-1", "A note with no page of its own."),
        ("note-2", "Second"),
    ]


def test_an_entry_with_nothing_at_all_is_skipped_with_the_reason():
    entries, skips = entries_normalise(
        [RawEntry(authors=["Nobody"])], base_url="https://feed.example/", now=NOW, limit=10
    )

    assert entries == []
    assert [s.reason for s in skips] == ["nothing to know the entry by: no link, id, title or text"]


def test_a_derived_identity_does_not_depend_on_the_fetch_time():
    raw = RawEntry(title="Same", summary="Same text")
    (first,), _ = entries_normalise([raw], base_url="https://feed.example/f", now=NOW, limit=1)
    later = NOW + datetime.timedelta(days=1)
    (second,), _ = entries_normalise([raw], base_url="https://feed.example/f", now=later, limit=1)

    assert (first.guid, first.url) == (second.guid, second.url)
