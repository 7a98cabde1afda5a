"""Upserting into drafts: new entries arrive as drafts, known ones keep what editors did."""

import datetime

import pytest

from feed.ingest import Outcome, ingest_source, upsert
from feed.models import FetchAttempt, Item, KeywordRule, Tombstone
from tests.factories import make_item, make_source
from tests.loopback import rss, rss_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)
LATER = NOW + datetime.timedelta(hours=1)


def test_new_entries_become_drafts_with_the_sources_kind_category_tags_and_heat(server, fetching):
    KeywordRule.objects.create(pattern="diffusion model", tag="扩散模型")
    server.serve(
        "/feed",
        rss(
            rss_item(1, title="A new diffusion model for video"),
            rss_item(2, title="Quarterly results"),
        ),
    )
    source = make_source(
        feed_url=server.url("/feed"),
        kind="paper",
        default_category="model",
        default_tags=["研究"],
        weight=70,
    )

    result = ingest_source(source, now=NOW)

    assert (result.status, result.new) == (Outcome.OK, 2)
    first, second = Item.objects.order_by("url")
    assert (first.status, first.kind, first.category, first.heat) == ("draft", "paper", "model", 70)
    assert first.published_at is None
    assert first.fetched_at == NOW
    assert first.cluster_key
    assert sorted(first.tags.names()) == ["扩散模型", "研究"]
    assert sorted(second.tags.names()) == ["研究"]
    assert not Item.objects.visible().exists()


def test_fetching_the_same_feed_twice_adds_nothing(server, fetching):
    server.serve("/feed", rss(rss_item(1), rss_item(2), rss_item(3)))
    source = make_source(feed_url=server.url("/feed"))

    first = ingest_source(source, now=NOW)
    second = ingest_source(source, now=LATER)

    assert (first.new, second.new, second.updated, second.unchanged) == (3, 0, 0, 3)
    assert Item.objects.count() == 3
    assert set(Item.objects.values_list("fetched_at", flat=True)) == {LATER}


def test_a_changed_entry_updates_a_drafts_feed_fields_but_never_the_status(server, fetching):
    source = make_source(feed_url=server.url("/feed"))
    item = make_item(
        source=source,
        url="https://news.example/stories/1",
        guid="https://news.example/stories/1",
        status="draft",
    )
    server.serve("/feed", rss(rss_item(1, title="Corrected headline")))

    result = ingest_source(source, now=NOW)

    item_after = Item.objects.get(pk=item.pk)
    assert result.updated == 1
    assert item_after.title == "Corrected headline"
    assert item_after.status == "draft"
    assert item_after.version == item.version + 1


def test_a_field_an_editor_changed_is_never_overwritten(server, fetching):
    source = make_source(feed_url=server.url("/feed"))
    item = make_item(
        source=source,
        url="https://news.example/stories/1",
        title="The editor's title",
        summary="Old summary",
        status="draft",
        edited_fields=["title"],
    )
    server.serve("/feed", rss(rss_item(1, title="The feed's title")))

    ingest_source(source, now=NOW)

    item.refresh_from_db()
    assert item.title == "The editor's title"
    assert item.summary == "Summary of story 1. It says something."


def test_a_rejected_item_stays_rejected_when_a_feed_shows_it_again(server, fetching):
    source = make_source(feed_url=server.url("/feed"))
    other = make_source(feed_url=server.url("/other"))
    rejected = make_item(source=source, url="https://news.example/stories/1", status="rejected")
    server.serve("/feed", rss(rss_item(1)))
    server.serve("/other", rss(rss_item(1)))

    ingest_source(source, now=NOW)
    ingest_source(other, now=NOW)

    assert list(Item.objects.values_list("pk", "status")) == [(rejected.pk, "rejected")]


def test_the_same_url_from_two_sources_stays_one_item(server, fetching):
    server.serve("/a", rss(rss_item(1, title="Story as A tells it")))
    server.serve("/b", rss(rss_item(1, title="Story as B tells it")))
    first = make_source(feed_url=server.url("/a"))
    second = make_source(feed_url=server.url("/b"))

    ingest_source(first, now=NOW)
    result = ingest_source(second, now=NOW)

    item = Item.objects.get()
    assert (result.new, result.unchanged) == (0, 1)
    assert (item.source, item.title) == (first, "Story as A tells it")


def test_the_same_story_at_another_url_is_clustered_and_hotter(server, fetching):
    title = "OpenAI ships a reasoning model to everyone"
    server.serve("/a", rss(rss_item(1, title=title, host="one.example")))
    server.serve("/b", rss(rss_item(1, title=title + "!", host="two.example")))
    first = make_source(feed_url=server.url("/a"), weight=50)
    second = make_source(feed_url=server.url("/b"), weight=50)

    ingest_source(first, now=NOW)
    ingest_source(second, now=NOW)

    one, two = Item.objects.order_by("url")
    assert one.cluster_key == two.cluster_key != ""
    assert (one.heat, two.heat) == (50, 60)


def test_entries_sharing_a_story_count_each_other_source_once_and_not_their_own(server, fetching):
    title = "OpenAI ships a reasoning model to everyone"
    server.serve("/a", rss(rss_item(1, title=title, host="one.example")))
    server.serve("/b", rss(rss_item(1, title=title, host="two.example")))
    # The third feed carries the story three times, at three URLs.
    server.serve(
        "/c", rss("".join(rss_item(n, title=title, host="three.example") for n in (1, 2, 3)))
    )
    first, second, third = (
        make_source(feed_url=server.url(path), weight=50) for path in ("/a", "/b", "/c")
    )

    for source in (first, second, third):
        ingest_source(source, now=NOW)

    heats = sorted(Item.objects.filter(source=third).values_list("heat", flat=True))
    # Two other sources carry it: +10 each, whatever the third feed itself holds.
    assert heats == [70, 70, 70]
    assert Item.objects.get(source=second).heat == 60


def test_an_entry_found_by_guid_is_the_same_item_even_at_a_new_url(server, fetching):
    item_xml = (
        "<item><title>Moved</title><link>https://news.example/new-place</link>"
        "<guid isPermaLink='false'>story-7</guid></item>"
    )
    server.serve("/feed", rss(item_xml))
    source = make_source(feed_url=server.url("/feed"))
    item = make_item(
        source=source, url="https://news.example/old-place", guid="story-7", status="draft"
    )

    result = ingest_source(source, now=NOW)

    assert (result.new, result.updated) == (0, 1)
    assert list(Item.objects.values_list("pk", "title")) == [(item.pk, "Moved")]


def test_an_undated_entry_keeps_its_first_time_on_later_fetches(server, fetching):
    server.serve(
        "/feed", rss("<item><title>No date</title><link>https://news.example/nd</link></item>")
    )
    source = make_source(feed_url=server.url("/feed"))

    ingest_source(source, now=NOW)
    second = ingest_source(source, now=LATER)

    assert second.unchanged == 1
    assert Item.objects.get().original_published_at == NOW


def test_a_deleted_item_leaves_a_tombstone_and_does_not_come_back(server, fetching):
    server.serve("/feed", rss(rss_item(1), rss_item(2)))
    source = make_source(feed_url=server.url("/feed"))
    ingest_source(source, now=NOW)

    Item.objects.get(url="https://news.example/stories/1").delete()
    result = ingest_source(source, now=LATER)

    assert Tombstone.objects.get().url == "https://news.example/stories/1"
    assert result.skipped_reasons == {"deleted by an editor": 1}
    assert list(Item.objects.values_list("url", flat=True)) == ["https://news.example/stories/2"]


def test_deleting_a_queryset_leaves_a_tombstone_for_every_item():
    items = [make_item(url=f"https://news.example/q/{n}", title=f"Q {n}") for n in range(3)]

    Item.objects.filter(pk__in=[i.pk for i in items[:2]]).delete()

    assert sorted(Tombstone.objects.values_list("url", "title")) == [
        ("https://news.example/q/0", "Q 0"),
        ("https://news.example/q/1", "Q 1"),
    ]
    assert Item.objects.get().url == "https://news.example/q/2"


def test_a_deleted_tombstone_lets_the_story_come_back(server, fetching):
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(feed_url=server.url("/feed"))
    ingest_source(source, now=NOW)
    Item.objects.get().delete()

    Tombstone.objects.all().delete()
    result = ingest_source(source, now=LATER)

    assert result.new == 1


def test_a_crash_while_writing_items_leaves_nothing_half_written(server, fetching, monkeypatch):
    server.serve("/feed", rss(*(rss_item(n) for n in range(10))))
    source = make_source(feed_url=server.url("/feed"))

    def broken(pairs):
        raise RuntimeError("disk on fire")

    # Items are created, then tagging fails: the whole fetch must roll back.
    monkeypatch.setattr("feed.ingest.upsert.items_tag", broken)
    result = ingest_source(source, now=NOW)

    source.refresh_from_db()
    assert result.status == Outcome.FAILED
    assert "disk on fire" in source.last_error
    assert Item.objects.count() == 0
    assert FetchAttempt.objects.get().status == "failed"
    assert (source.lease_owner, source.lease_expires_at) == ("", None)


def test_an_unexpected_item_conflict_is_taken_as_known_and_the_rest_go_in(
    server, fetching, monkeypatch
):
    server.serve("/feed", rss(rss_item(1), rss_item(2)))
    source = make_source(feed_url=server.url("/feed"))
    real_insert = upsert.items_insert_new
    # Another worker commits story 1 after our look-up of known URLs, just
    # before our insert.
    calls = {"n": 0}

    def racing_insert(**kwargs):
        if calls["n"] == 0:
            calls["n"] += 1
            make_item(url="https://news.example/stories/1", status="draft")
        return real_insert(**kwargs)

    monkeypatch.setattr(upsert, "items_insert_new", racing_insert)
    result = ingest_source(source, now=NOW)

    assert calls["n"] == 1  # the rival did come in between
    assert (result.new, result.unchanged) == (1, 1)
    assert Item.objects.count() == 2
    rival = Item.objects.get(url="https://news.example/stories/1")
    assert rival.source_id != source.pk  # the rival's item, untouched
