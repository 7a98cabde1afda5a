"""Source health and the schedule: what each fetch records, backoff, and politeness."""

import datetime
import random

import httpx
import pytest

from feed.ingest import Outcome, ingest_source
from feed.ingest.due import sources_due
from feed.ingest.leases import host_claim
from feed.ingest.schedule import (
    backoff_delay,
    host_key,
    next_fetch_after_failure,
    next_fetch_after_success,
    spread,
)
from feed.models import FetchAttempt, Item, Source
from feed.tasks import sources_enqueue_due
from tests.factories import make_source
from tests.loopback import LoopbackServer, rss, rss_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)
HOUR = datetime.timedelta(hours=1)


def test_every_fetch_records_status_counts_duration_and_error(server, fetching):
    empty = "<item><pubDate>Mon, 30 Nov 2026 10:00:00 GMT</pubDate></item>"
    server.serve("/feed", rss(rss_item(1), rss_item(2), empty))
    server.serve("/broken", b"oops", status=500, content_type="text/plain")
    good = make_source(feed_url=server.url("/feed"))
    bad = make_source(feed_url=server.url("/broken"))

    ingest_source(good, now=NOW)
    ingest_source(bad, now=NOW)

    ok = FetchAttempt.objects.get(source=good)
    assert (ok.status, ok.http_status, ok.items_new, ok.items_skipped) == ("ok", 200, 2, 1)
    assert ok.skipped_reasons == {"nothing to know the entry by: no link, id, title or text": 1}
    assert ok.duration > datetime.timedelta(0)
    failed = FetchAttempt.objects.get(source=bad)
    assert (failed.status, failed.http_status) == ("failed", 500)
    assert "HTTP 500" in failed.error


def test_the_history_keeps_the_newest_fetches(server, fetching):
    fetching.FETCH_HISTORY_KEEP = 3
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(feed_url=server.url("/feed"))

    for hour in range(5):
        ingest_source(source, now=NOW + hour * HOUR)

    assert list(FetchAttempt.objects.values_list("started_at", flat=True)) == [
        NOW + 4 * HOUR,
        NOW + 3 * HOUR,
        NOW + 2 * HOUR,
    ]


def test_failures_back_off_exponentially_and_a_success_resets_them(server, fetching):
    server.serve("/feed", b"", status=503, content_type="text/plain")
    source = make_source(feed_url=server.url("/feed"))
    delays = []
    now = NOW
    for _ in range(4):
        ingest_source(source, now=now)
        source.refresh_from_db()
        delays.append((source.next_fetch_at - now).total_seconds())
        now = source.next_fetch_at

    assert source.consecutive_failures == 4
    for n, delay in enumerate(delays):
        assert 0.8 * 300 * 2**n <= delay <= 300 * 2**n

    server.serve("/feed", rss(rss_item(1)))
    ingest_source(source, now=now)
    source.refresh_from_db()
    assert (source.consecutive_failures, source.last_status, source.last_error) == (0, "ok", "")
    # A fetch that brought a new entry halves the interval (1 h → 30 min).
    assert source.fetch_interval == datetime.timedelta(minutes=30)
    assert source.next_fetch_at == spread(now=now, interval=source.fetch_interval, key=source.pk)


def test_a_source_that_keeps_failing_is_kept_and_its_backoff_is_capped(server, fetching):
    server.serve("/feed", b"", status=500, content_type="text/plain")
    source = make_source(feed_url=server.url("/feed"))
    now = NOW
    for _ in range(25):
        ingest_source(source, now=now)
        source.refresh_from_db()
        assert source.next_fetch_at - now <= datetime.timedelta(days=1)
        now = source.next_fetch_at

    assert Source.objects.filter(pk=source.pk, is_active=True).exists()
    assert source.consecutive_failures == 25


def test_the_backoff_has_jitter():
    delays = {backoff_delay(failures=3, rng=random.Random(seed)) for seed in range(10)}

    assert len(delays) == 10
    assert all(
        datetime.timedelta(seconds=960) <= d <= datetime.timedelta(seconds=1200) for d in delays
    )


@pytest.mark.parametrize(
    ("headers", "ttl", "earliest"),
    [
        ({}, None, NOW + HOUR),
        ({"Cache-Control": "public, max-age=7200"}, None, NOW + 2 * HOUR),
        ({"Expires": "Tue, 01 Dec 2026 12:00:00 GMT"}, None, NOW + 4 * HOUR),
        ({"Retry-After": "10800"}, None, NOW + 3 * HOUR),
        ({}, 300, NOW + 5 * HOUR),
        ({"Cache-Control": "max-age=60"}, None, NOW + HOUR),
    ],
    ids=["interval", "max-age", "expires", "retry-after", "ttl", "shorter-than-interval"],
)
def test_the_schedule_never_comes_back_sooner_than_the_feed_allows(headers, ttl, earliest):
    assert (
        next_fetch_after_success(
            now=NOW, interval=HOUR, headers=httpx.Headers(headers), ttl_minutes=ttl
        )
        == earliest
    )


def test_an_absurd_header_cannot_stop_a_source_for_years(settings):
    settings.FETCH_MAX_DELAY = 7 * 86400
    headers = httpx.Headers({"Expires": "Thu, 31 Dec 2099 23:59:59 GMT"})

    assert next_fetch_after_success(now=NOW, interval=HOUR, headers=headers) == (
        NOW + datetime.timedelta(days=7)
    )
    assert next_fetch_after_failure(
        now=NOW, failures=1, headers=httpx.Headers({"Retry-After": "999999999"})
    ) == NOW + datetime.timedelta(days=7)


def test_a_ttl_in_the_feed_sets_the_next_fetch(server, fetching):
    server.serve("/feed", rss(rss_item(1), channel_extra="<ttl>240</ttl>"))
    source = make_source(feed_url=server.url("/feed"))

    ingest_source(source, now=NOW)

    source.refresh_from_db()
    assert source.next_fetch_at == NOW + 4 * HOUR


def test_a_feed_that_parses_only_in_part_imports_what_it_can_with_a_warning(server, fetching):
    broken = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        b"<item><title>Kept</title><link>https://news.example/kept</link></item>"
        b"<item><title>Cut & off</title><link>https://news.example/cut</link></item>"
        b"<item><title>Lost"
    )
    server.serve("/feed", broken)
    source = make_source(feed_url=server.url("/feed"))

    result = ingest_source(source, now=NOW)

    source.refresh_from_db()
    assert result.status == Outcome.PARTIAL
    assert source.last_status == "partial"
    assert "not well-formed" in source.last_warning
    assert "https://news.example/kept" in Item.objects.values_list("url", flat=True)


# Politeness: one request at a time per host, and a gap between requests.


def test_a_host_busy_with_another_request_defers_the_fetch(server, fetching):
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(feed_url=server.url("/feed"))
    assert host_claim(host=host_key(source.feed_url), owner="another-worker", now=NOW) is None

    result = ingest_source(source, now=NOW)

    source.refresh_from_db()
    assert result.status == Outcome.DEFERRED
    assert server.requests == []
    assert source.next_fetch_at == NOW + datetime.timedelta(seconds=1)
    assert (source.lease_owner, source.last_fetched_at) == ("", None)


def test_the_per_host_gap_is_kept_between_two_sources_of_one_host(server, fetching):
    fetching.FETCH_HOST_GAP = 0.0
    fetching.FETCH_HOST_GAPS = {"127.0.0.1": 3.0}
    server.serve("/a", rss(rss_item(1)))
    server.serve("/b", rss(rss_item(2)))
    first = make_source(feed_url=server.url("/a"))
    second = make_source(feed_url=server.url("/b"))
    other_server = LoopbackServer()
    other_server.serve("/c", rss(rss_item(3)))
    elsewhere = make_source(feed_url=other_server.url("/c", host="localhost"))
    fetching.FETCH_ALLOW_HOSTS = ["127.0.0.1", "localhost"]
    try:
        assert ingest_source(first, now=NOW).status == Outcome.OK
        too_soon = ingest_source(second, now=NOW + datetime.timedelta(seconds=1))
        other_host = ingest_source(elsewhere, now=NOW + datetime.timedelta(seconds=1))
        in_time = ingest_source(second, now=NOW + datetime.timedelta(seconds=4))
    finally:
        other_server.stop()

    assert too_soon.status == Outcome.DEFERRED
    assert too_soon.next_fetch_at >= NOW + datetime.timedelta(seconds=3)
    assert other_host.status == Outcome.OK
    assert in_time.status == Outcome.OK
    assert server.hits("/b") == 1


def test_arxiv_hosts_have_a_three_second_gap_by_default(settings):
    from feed.ingest.schedule import host_gap

    assert host_gap(host_key("https://export.arxiv.org/api/query?x=1")) == datetime.timedelta(
        seconds=3
    )


# Leases: two workers never fetch one source at once; a dead worker's lease expires.


def test_a_source_held_by_another_worker_is_not_fetched(server, fetching):
    server.serve("/feed", rss(rss_item(1)))
    source = make_source(
        feed_url=server.url("/feed"),
        lease_owner="other-machine:123:abcd",
        lease_expires_at=NOW + datetime.timedelta(minutes=5),
    )

    result = ingest_source(source, now=NOW)

    assert result.status == Outcome.BUSY
    assert server.requests == []
    assert Source.objects.get(pk=source.pk).lease_owner == "other-machine:123:abcd"


def test_a_worker_killed_mid_fetch_leaves_its_source_due_again_once_the_lease_expires(
    server, fetching
):
    server.serve("/feed", rss(rss_item(1)))
    # What a worker killed during its fetch leaves behind: its lease, nothing else.
    source = make_source(
        feed_url=server.url("/feed"),
        next_fetch_at=NOW - HOUR,
        lease_owner="dead-worker:1:0000",
        lease_expires_at=NOW + datetime.timedelta(minutes=5),
    )

    assert list(sources_due(now=NOW)) == []
    later = NOW + datetime.timedelta(minutes=6)
    assert list(sources_due(now=later)) == [source]
    result = ingest_source(source, now=later)
    assert (result.status, result.new) == (Outcome.OK, 1)


# The scheduler.


def test_the_scheduler_queues_each_due_source_once(
    server, fetching, django_capture_on_commit_callbacks
):
    server.serve("/feed", rss(rss_item(1)))
    due = make_source(feed_url=server.url("/feed"))
    make_source(feed_url=server.url("/feed"), next_fetch_at=NOW + HOUR)  # not yet
    make_source(feed_url=server.url("/feed"), is_active=False)  # switched off
    make_source(feed_url="")  # items by hand only

    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert sources_enqueue_due(now=NOW) == [due.pk]
        # Not queued twice while the first task waits for a worker.
        assert sources_enqueue_due(now=NOW + datetime.timedelta(seconds=30)) == []
    assert len(queued) == 1
    queued[0]()  # the worker runs the task (the immediate backend, in tests)

    due.refresh_from_db()
    assert (due.last_status, due.lease_owner) == ("ok", "")
    assert Item.objects.filter(source=due).count() == 1
