"""Nothing overwrites a live item: a feed refresh or an import only fills or proposes."""

import datetime
import io
import json

import pytest
from django.core.management import call_command

from feed.ingest import ingest_source
from feed.models import Item
from feed.revisions import ItemRevision, refresh_decision
from tests.factories import make_item, make_source
from tests.loopback import rss, rss_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)
URL = "https://news.example/stories/1"


def live_item(**kwargs) -> Item:
    kwargs.setdefault("url", URL)
    kwargs.setdefault("guid", URL)
    kwargs.setdefault("status", "featured")
    kwargs.setdefault("title", "The headline readers see")
    kwargs.setdefault("summary", "The summary readers see.")
    return make_item(**kwargs)


def revisions(item: Item) -> list[tuple]:
    return list(
        ItemRevision.objects.filter(item=item)
        .order_by("id")
        .values_list("origin", "status", "changes", "proposed_by_name")
    )


def test_the_policy_never_blanks_fills_empty_fields_and_proposes_the_rest():
    item = Item(status="published", title="Old", summary="", authors="Ann", body="<p>x</p>")

    decision = refresh_decision(
        item=item, incoming={"title": "New", "summary": "Filled", "authors": "", "body": None}
    )

    assert decision.apply == {"summary": "Filled"}
    assert decision.propose == {"title": "New"}


def test_the_policy_applies_every_non_empty_change_to_a_draft():
    item = Item(status="draft", title="Old", summary="Old summary")

    decision = refresh_decision(item=item, incoming={"title": "New", "summary": ""})

    assert (decision.apply, decision.propose) == ({"title": "New"}, {})


def test_a_feed_refresh_of_a_live_item_proposes_and_the_page_keeps_its_text(
    server, fetching, client
):
    source = make_source(slug="lab-feed", feed_url=server.url("/feed"))
    item = live_item(source=source, authors="")
    server.serve("/feed", rss(rss_item(1, title="A rewritten headline")))

    result = ingest_source(source, now=NOW)

    item.refresh_from_db()
    assert result.updated == 1
    assert (item.title, item.summary) == ("The headline readers see", "The summary readers see.")
    # Empty fields are filled at once; changed text waits for a chief.
    assert revisions(item) == [
        (
            "feed",
            "applied",
            {
                "body": "Summary of story 1. It says something.",
                "original_published_at": "2026-11-30T10:01:00+00:00",
            },
            "lab-feed",
        ),
        (
            "feed",
            "pending",
            {"title": "A rewritten headline", "summary": "Summary of story 1. It says something."},
            "lab-feed",
        ),
    ]
    page = client.get(item.get_absolute_url()).content.decode()
    assert "The headline readers see" in page
    assert "A rewritten headline" not in page


def test_fetching_the_same_change_again_keeps_one_proposal(server, fetching):
    source = make_source(slug="lab-feed", feed_url=server.url("/feed"))
    item = live_item(source=source)
    server.serve("/feed", rss(rss_item(1, title="A rewritten headline")))

    ingest_source(source, now=NOW)
    second = ingest_source(source, now=NOW + datetime.timedelta(hours=1))

    assert second.updated == 0
    assert [row[1] for row in revisions(item)] == ["applied", "pending"]


def test_a_newer_feed_change_replaces_the_older_proposal(server, fetching):
    source = make_source(slug="lab-feed", feed_url=server.url("/feed"))
    item = live_item(source=source)
    server.serve("/feed", rss(rss_item(1, title="First rewrite")))
    ingest_source(source, now=NOW)
    server.serve("/feed", rss(rss_item(1, title="Second rewrite")))

    ingest_source(source, now=NOW + datetime.timedelta(hours=1))

    assert [(row[1], row[2]["title"]) for row in revisions(item) if "title" in row[2]] == [
        ("superseded", "First rewrite"),
        ("pending", "Second rewrite"),
    ]


def test_an_import_line_with_only_a_title_never_rewrites_or_blanks_a_featured_item(tmp_path):
    source = make_source(slug="lab")
    item = live_item(source=source)
    lines = tmp_path / "items.jsonl"
    lines.write_text(json.dumps({"source": "lab", "url": URL, "title": "Imported title"}) + "\n")

    call_command("import_items", str(lines), stdout=io.StringIO())

    item.refresh_from_db()
    assert (item.title, item.summary, item.status) == (
        "The headline readers see",
        "The summary readers see.",
        "featured",
    )
    assert revisions(item) == [("import", "pending", {"title": "Imported title"}, "lab")]


def test_an_import_still_refreshes_a_draft_and_records_it(tmp_path):
    source = make_source(slug="lab")
    item = live_item(source=source, status="draft", summary="Old summary")
    lines = tmp_path / "items.jsonl"
    lines.write_text(json.dumps({"source": "lab", "url": URL, "title": "Imported title"}) + "\n")

    call_command("import_items", str(lines), stdout=io.StringIO())

    item.refresh_from_db()
    assert (item.title, item.summary) == ("Imported title", "Old summary")
    assert revisions(item) == [("import", "applied", {"title": "Imported title"}, "lab")]
