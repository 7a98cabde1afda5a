"""Every document of the shared feed corpus, served over HTTP and fetched.

For each well-formed feed, the items imported plus the entries skipped with
a stated reason add up to the entry count that manifest.json gives. No
document, well-formed or not, crashes a run or harms items fetched before.
"""

import json

import pytest

from feed.ingest import Outcome, ingest_source
from feed.models import FetchAttempt, Item
from tests.factories import make_source
from tests.loopback import FEEDS, rss, rss_item

pytestmark = pytest.mark.django_db

MANIFEST = json.loads((FEEDS / "manifest.json").read_text())
WELL_FORMED = [doc for doc in MANIFEST if doc["wellformed"] and doc["expect_entries"] is not None]
OTHERS = [doc for doc in MANIFEST if doc not in WELL_FORMED]


def test_the_corpus_is_all_there():
    # Guards the parametrised tests below against an empty or missing corpus.
    assert len(MANIFEST) == 116
    assert all((FEEDS / doc["file"]).is_file() for doc in MANIFEST)


@pytest.mark.parametrize("doc", WELL_FORMED, ids=[doc["file"] for doc in WELL_FORMED])
def test_every_entry_of_a_well_formed_feed_is_imported_or_skipped_with_a_reason(
    doc, server, fetching
):
    source = make_source(feed_url=server.serve_feed_file("/feed", doc["file"]))

    result = ingest_source(source)

    assert result.status in {Outcome.OK, Outcome.PARTIAL}, result.error
    assert result.new + result.updated + result.unchanged + result.skipped == doc["expect_entries"]
    assert Item.objects.filter(source=source).count() == result.new
    assert all(reason for reason in result.skipped_reasons)
    attempt = FetchAttempt.objects.get(source=source)
    assert (attempt.items_new, attempt.items_skipped) == (result.new, result.skipped)


@pytest.mark.parametrize("doc", OTHERS, ids=[doc["file"] for doc in OTHERS])
def test_a_broken_document_never_crashes_a_run_and_leaves_earlier_items_intact(
    doc, server, fetching
):
    good = rss(rss_item(1), rss_item(2))
    source = make_source(feed_url=server.serve("/feed", good))
    ingest_source(source)
    before = list(Item.objects.order_by("url").values_list("url", "title", "summary", "status"))

    server.serve_feed_file("/feed", doc["file"])
    source.refresh_from_db()
    source.etag = source.last_modified = ""
    source.save()
    result = ingest_source(source)

    after = list(
        Item.objects.filter(url__in=[row[0] for row in before])
        .order_by("url")
        .values_list("url", "title", "summary", "status")
    )
    assert after == before
    assert result.status in {Outcome.OK, Outcome.PARTIAL, Outcome.FAILED}
    source.refresh_from_db()
    if result.status == Outcome.FAILED:
        assert source.last_error == result.error != ""
        assert source.consecutive_failures == 1
