"""After ingestion: a fetch queues its new drafts, and nothing enrichment does fails it."""

import datetime
from decimal import Decimal

import pytest

from enrichment.models import Enrichment, Run, UsageDay
from enrichment.services import fetch_pending, item_enrich
from feed.ingest.pipeline import Outcome, ingest_source
from feed.models import Item
from feed.signals import items_ingested
from tests.enrichment.conftest import GOOD
from tests.enrichment.test_offline import ARXIV, ingest_file
from tests.factories import make_item, make_source
from tests.loopback import LoopbackServer

pytestmark = pytest.mark.django_db

ZH_FEED = "aitop-zh-sample.xml"


@pytest.fixture
def feed_server(settings):
    """The Chinese sample feed on 127.0.0.1, with fetch settings that allow it."""
    settings.FETCH_ALLOW_HOSTS = ["127.0.0.1"]
    settings.FETCH_HOST_GAP = 0.0
    settings.AITOP_ENRICH_ON_INGEST = True
    server = LoopbackServer()
    server.serve_feed_file("/feed", ZH_FEED, content_type="application/rss+xml")
    yield server
    server.stop()


def fetch(source, capture) -> object:
    with capture(execute=True):
        return ingest_source(source)


def test_a_fetch_enriches_its_new_drafts_once_it_has_committed(
    feed_server, django_capture_on_commit_callbacks
):
    source = make_source(feed_url=feed_server.url("/feed"), default_category="model")

    result = fetch(source, django_capture_on_commit_callbacks)

    assert (result.status, result.new) == (Outcome.OK, 2)
    items = Item.objects.filter(source=source)
    assert sorted(items.values_list("enrichment__state", flat=True)) == ["done", "done"]
    assert set(items.values_list("status", flat=True)) == {"draft"}
    assert set(items.values_list("category", flat=True)) == {"model"}
    assert Run.objects.filter(item__source=source, backend="offline").count() == 2


def test_an_endpoint_that_is_down_fails_the_drafts_not_the_fetch(
    feed_server, django_capture_on_commit_callbacks, settings
):
    settings.AITOP_AI_BACKEND = "chat"
    settings.AITOP_AI_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    settings.AITOP_AI_MODEL = "test-model"
    settings.AITOP_AI_MAX_RETRIES = 0
    source = make_source(feed_url=feed_server.url("/feed"))

    result = fetch(source, django_capture_on_commit_callbacks)

    assert (result.status, result.new) == (Outcome.OK, 2)
    enrichments = Enrichment.objects.filter(item__source=source)
    assert [e.state for e in enrichments] == ["failed", "failed"]
    assert all(e.error.startswith("could not reach http://127.0.0.1:9/v1") for e in enrichments)
    assert set(Item.objects.filter(source=source).values_list("status", flat=True)) == {"draft"}


def test_a_queue_that_is_down_does_not_fail_the_fetch(
    feed_server, django_capture_on_commit_callbacks, monkeypatch
):
    from enrichment import receivers

    class QueueDown:
        def enqueue(self, *args, **kwargs):
            raise ConnectionError("the task queue is down")

    monkeypatch.setattr(receivers, "enrich_items_task", QueueDown())
    source = make_source(feed_url=feed_server.url("/feed"))

    result = fetch(source, django_capture_on_commit_callbacks)

    assert (result.status, result.new) == (Outcome.OK, 2)
    assert not Enrichment.objects.filter(item__source=source).exists()


def test_a_fetch_does_not_retry_an_item_that_failed_too_often(settings, clock):
    settings.AITOP_AI_MAX_ATTEMPTS = 3
    source = make_source()
    seen = {"source": source, "status": "draft", "fetched_at": clock.now, "summary": "Text."}
    given_up, retried, new = (make_item(recommendation="", **seen) for _ in range(3))
    Enrichment.objects.create(item=given_up, state="failed", attempts=3, error="answer refused")
    Enrichment.objects.create(item=retried, state="failed", attempts=1, error="HTTP 502")

    items_ingested.send_robust(sender="feed", fetches=[(source.pk, clock.now)])

    states = dict(Enrichment.objects.values_list("item_id", "state"))
    assert states == {given_up.pk: "failed", retried.pk: "done", new.pk: "done"}
    assert not Run.objects.filter(item=given_up).exists()


def test_a_batchs_fetches_pick_out_their_own_drafts_and_no_other_fetchs(clock):
    one, two = make_source(), make_source()
    earlier = clock.now - datetime.timedelta(minutes=5)
    later = clock.now + datetime.timedelta(microseconds=123457)

    def draft(source, fetched_at, **extra):
        return make_item(source=source, status="draft", fetched_at=fetched_at, **extra)

    ones = draft(one, earlier)
    twos = draft(two, later)
    # The same sources at the batch's other time: fetches that were not in the batch.
    draft(one, later)
    draft(two, earlier)
    draft(make_source(), later)
    published = make_item(source=one, fetched_at=earlier)

    found = fetch_pending([(one.pk, earlier), (two.pk, later)])

    assert sorted(found) == sorted([ones.pk, twos.pk])
    assert published.pk not in found


def test_the_next_fetch_keeps_the_ai_summary_instead_of_putting_the_feeds_back(chat, backend):
    (item,) = ingest_file(ARXIV, kind="paper")
    chat.answer(GOOD)
    item_enrich(item=item, backend=backend)

    ingest_file(ARXIV, source=item.source)  # the same entry, seen again by the next fetch

    item.refresh_from_db()
    assert item.summary == GOOD["summary"]
    assert item.title == "Heat-bath random walks with Markov bases"
    assert item.edited_fields == ["summary"]


def test_a_call_cut_off_at_max_tokens_records_what_its_tokens_cost(chat, backend, clock):
    from tests.enrichment.chat_server import completion

    item = make_item(recommendation="", status="draft", summary="Text.")
    body = completion(GOOD, tokens_in=1000, tokens_out=400)
    body["choices"][0]["finish_reason"] = "length"
    chat.status(200, body=body)

    result = item_enrich(item=item, backend=backend, now=clock.now)

    assert (result.status, result.error) == ("failed", "the answer was cut off at max_tokens")
    run = Run.objects.get(item=item)
    # 1000 × $2/M + 400 × $8/M, the same as the day's spend says
    assert (run.tokens_in, run.tokens_out, run.cost) == (1000, 400, Decimal("0.005200"))
    assert result.cost == Decimal("0.005200")
    assert UsageDay.objects.get().cost == Decimal("0.005200")
