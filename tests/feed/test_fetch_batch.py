"""fetch_worker's batches: claims that never overlap, fetches in parallel within politeness."""

import datetime
import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

import certifi
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from aitop import netguard
from feed.ingest import Outcome
from feed.ingest.batch import (
    Claims,
    _finish_all,
    _start_all,
    fetch_threads,
    sources_claim_batch,
    sources_fetch_batch,
)
from feed.ingest.keywords import keyword_tagger_active
from feed.ingest.leases import host_claim, host_release
from feed.ingest.pipeline import feed_fetch_read
from feed.ingest.schedule import host_key
from feed.models import FetchAttempt, FetchHost, Item, Source
from tests.factories import make_source
from tests.loopback import LoopbackServer, respond, rss, rss_item

pytestmark = pytest.mark.django_db
NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)


@pytest.fixture
def servers():
    """Three loopback servers: three hosts (the politeness key is host and port)."""
    running = [LoopbackServer() for _ in range(3)]
    yield running
    for server in running:
        server.stop()


def feed_for(n: int) -> bytes:
    return rss(*(rss_item(n * 100 + k, host=f"s{n}.example") for k in range(3)))


def meeting_route(barrier: threading.Barrier, body: bytes):
    """A feed that answers only once `barrier.parties` requests are in flight together."""

    def handler(h):
        try:
            barrier.wait(timeout=5)
        except threading.BrokenBarrierError:
            respond(h, b"the requests did not overlap", status=500, content_type="text/plain")
            return
        respond(h, body)

    return handler


def claimed(owner: str, *, limit: int = 100) -> list[Source]:
    return sources_claim_batch(owner=owner, now=NOW, limit=limit)


def test_sources_on_different_hosts_are_fetched_at_the_same_time(servers, fetching):
    barrier = threading.Barrier(3)
    for n, server in enumerate(servers):
        make_source(feed_url=server.route("/feed", meeting_route(barrier, feed_for(n))))

    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=3, now=NOW)

    assert [r.status for r in results] == [Outcome.OK] * 3, [r.error for r in results]
    assert Item.objects.count() == 9


def test_one_host_gets_one_request_at_a_time_by_default(server, fetching):
    for n in range(4):
        make_source(feed_url=server.serve(f"/feed/{n}", feed_for(n)))

    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=4, now=NOW)

    assert [r.status for r in results] == [Outcome.OK] * 4
    assert server.max_in_flight == 1
    assert Item.objects.count() == 12


def test_the_per_host_setting_lets_that_many_requests_to_one_host_overlap(server, fetching):
    fetching.FETCH_PER_HOST = 2
    barrier = threading.Barrier(2)
    for n in range(4):
        make_source(feed_url=server.route(f"/feed/{n}", meeting_route(barrier, feed_for(n))))

    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=4, now=NOW)

    assert [r.status for r in results] == [Outcome.OK] * 4, [r.error for r in results]
    assert server.max_in_flight == 2


def test_a_host_with_a_gap_of_its_own_gets_one_request_at_a_time_whatever_the_setting(
    server, fetching
):
    fetching.FETCH_PER_HOST = 4
    fetching.FETCH_HOST_GAPS = {"127.0.0.1": 0.0}
    for n in range(3):
        make_source(feed_url=server.serve(f"/feed/{n}", feed_for(n)))

    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=3, now=NOW)

    assert [r.status for r in results] == [Outcome.OK] * 3
    assert server.max_in_flight == 1


def test_a_host_another_worker_holds_defers_the_source_and_frees_it(server, fetching):
    fetching.FETCH_HOST_WAIT = 0.0  # given back at once, not waited for
    source = make_source(feed_url=server.serve("/feed", feed_for(1)))
    assert host_claim(host=host_key(source.feed_url), owner="other-worker", now=NOW) is None

    (result,) = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=2, now=NOW)

    source.refresh_from_db()
    assert result.status == Outcome.DEFERRED
    assert (source.lease_owner, source.lease_expires_at) == ("", None)
    assert source.next_fetch_at == result.next_fetch_at > NOW
    assert server.requests == []
    assert not FetchAttempt.objects.exists()


def other_worker_ends(host: str) -> None:
    """Another worker's request to `host` ends (in a thread: a connection of its own)."""
    try:
        host_release(host=host, owner="other-worker", finished_at=NOW)
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)  # the other worker commits
def test_a_host_another_worker_frees_soon_is_waited_for_in_the_batch(server, fetching):
    source = make_source(feed_url=server.serve("/feed", feed_for(1)))
    host = host_key(source.feed_url)
    assert host_claim(host=host, owner="other-worker", now=NOW) is None
    freed = threading.Timer(0.3, other_worker_ends, args=[host])
    started = time.monotonic()
    freed.start()
    try:
        (result,) = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=2, now=NOW)
    finally:
        freed.join()

    assert result.status == Outcome.OK
    # Tried again while the batch still ran (within the 2 s host wait), not deferred to
    # a later batch; a loaded machine (SQLite's write lock, CI) once took 1.3 s here.
    assert 0.3 <= time.monotonic() - started < 2.0
    assert len(server.requests) == 1
    source.refresh_from_db()
    assert source.lease_owner == "" and source.last_status == Source.Status.OK


def test_a_host_held_elsewhere_for_longer_than_the_wait_defers_the_source(server, fetching):
    fetching.FETCH_HOST_WAIT = 1.5
    source = make_source(feed_url=server.serve("/feed", feed_for(1)))
    assert host_claim(host=host_key(source.feed_url), owner="other-worker", now=NOW) is None
    started = time.monotonic()

    (result,) = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=2, now=NOW)

    assert result.status == Outcome.DEFERRED
    # Tried after 0.05, 0.15, 0.35 and 0.75 s; the next try, at 1.55 s, would
    # come after the wait.
    assert 0.7 <= time.monotonic() - started < 1.5
    assert server.requests == []
    source.refresh_from_db()
    assert (source.lease_owner, source.next_fetch_at) == ("", result.next_fetch_at)


def test_a_short_host_gap_is_waited_for_in_the_batch(server, fetching):
    fetching.FETCH_HOST_GAP = 0.3
    for n in range(2):
        make_source(feed_url=server.serve(f"/feed/{n}", feed_for(n)))

    # Real time (no `now`): the gap passes while the batch waits.
    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=2)

    assert [r.status for r in results] == [Outcome.OK, Outcome.OK]
    first, second = sorted(FetchAttempt.objects.values_list("started_at", flat=True))
    assert second - first >= datetime.timedelta(seconds=0.3)
    assert len(server.requests) == 2


def test_the_host_gap_still_spaces_requests_of_one_batch(server, fetching):
    fetching.FETCH_HOST_GAP = 30.0
    for n in range(2):
        make_source(feed_url=server.serve(f"/feed/{n}", feed_for(n)))

    results = sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=2, now=NOW)

    assert sorted(r.status for r in results) == [Outcome.DEFERRED, Outcome.OK]
    assert len(server.requests) == 1


def test_two_workers_claiming_at_once_never_share_a_source():
    sources = [make_source() for _ in range(10)]

    first = claimed("w1", limit=6)
    second = claimed("w2", limit=6)

    assert len(first) == 6
    assert len(second) == 4
    assert {s.pk for s in first} | {s.pk for s in second} == {s.pk for s in sources}
    assert Source.objects.filter(lease_owner="w1").count() == 6
    assert claimed("w3") == []


def test_a_batch_takes_never_fetched_sources_first_then_the_longest_overdue():
    late = make_source(next_fetch_at=NOW - datetime.timedelta(hours=3))
    later = make_source(next_fetch_at=NOW - datetime.timedelta(hours=1))
    new = make_source(next_fetch_at=None)
    make_source(next_fetch_at=NOW + datetime.timedelta(minutes=5))

    assert [s.pk for s in claimed("w1")] == [new.pk, late.pk, later.pk]


def test_an_expired_lease_is_claimed_again_but_a_live_one_is_not():
    dead = make_source(lease_owner="killed", lease_expires_at=NOW - datetime.timedelta(seconds=1))
    make_source(lease_owner="alive", lease_expires_at=NOW + datetime.timedelta(minutes=1))

    assert [s.pk for s in claimed("w1")] == [dead.pk]


def test_fetch_worker_until_idle_fetches_every_due_source_once(servers, fetching):
    for n, server in enumerate(servers):
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))
    make_source(slug="idle", feed_url="", is_active=True)

    call_command("fetch_worker", "--until-idle", "--concurrency", "3", verbosity=0)

    assert FetchAttempt.objects.filter(status="ok").count() == 3
    assert Item.objects.count() == 9
    assert [server.hits("/feed") for server in servers] == [1, 1, 1]
    assert not Source.objects.exclude(lease_owner="").exists()


@pytest.fixture
def told():
    """What the apps above feed were told after fetches: each signal's sends."""
    from feed.signals import items_arrived, items_ingested

    heard = {"arrived": [], "ingested": []}

    def arrived(sender, *, item_ids, **kwargs):
        heard["arrived"].append(sorted(item_ids))

    def ingested(sender, *, fetches, **kwargs):
        heard["ingested"].append(sorted(fetches))

    items_arrived.connect(arrived, dispatch_uid="test-arrived")
    items_ingested.connect(ingested, dispatch_uid="test-ingested")
    yield heard
    items_arrived.disconnect(dispatch_uid="test-arrived")
    items_ingested.disconnect(dispatch_uid="test-ingested")


@pytest.mark.django_db(transaction=True)
def test_a_batch_tells_the_apps_above_feed_of_its_new_items_once(servers, fetching, told):
    # One story-matching task and one enrichment task for the whole batch,
    # where each source used to queue two of its own. (Real commits: the
    # signals are gathered as each source's transaction commits.)
    sources = [
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))
        for n, server in enumerate(servers)
    ]
    make_source(slug="empty", feed_url=servers[0].serve("/empty", rss()))

    sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=3, now=NOW)

    assert told["arrived"] == [sorted(Item.objects.values_list("pk", flat=True))]
    assert len(told["arrived"][0]) == 9
    assert told["ingested"] == [sorted((source.pk, NOW) for source in sources)]


@pytest.mark.django_db(transaction=True)
def test_a_long_batch_tells_them_every_few_fetches_not_only_at_its_end(
    servers, fetching, told, monkeypatch
):
    # A worker killed late in a long batch must not leave every committed
    # fetch of it unannounced.
    from feed import signals

    monkeypatch.setattr(signals, "GATHER_FETCHES", 2)
    for n, server in enumerate(servers):
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))

    sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=1, now=NOW)

    assert [len(fetches) for fetches in told["ingested"]] == [2, 1]
    assert [len(ids) for ids in told["arrived"]] == [6, 3]


@pytest.mark.django_db(transaction=True)
def test_a_batch_that_stores_nothing_new_tells_nobody(server, fetching, told):
    make_source(feed_url=server.serve("/feed", feed_for(1)))
    sources_fetch_batch(sources=claimed("w1"), owner="w1", now=NOW)
    Source.objects.update(next_fetch_at=NOW)

    later = NOW + datetime.timedelta(hours=1)
    sources_fetch_batch(
        sources=sources_claim_batch(owner="w1", now=later, limit=10), owner="w1", now=later
    )

    # The first fetch's three items, and nothing since.
    assert (len(told["arrived"]), len(told["ingested"])) == (1, 1)


def test_a_batch_keeps_only_the_newest_fetches_of_each_source(servers, fetching, settings):
    settings.FETCH_HISTORY_KEEP = 2
    for n, server in enumerate(servers):
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))

    for hour in range(4):
        Source.objects.update(next_fetch_at=None)
        at = NOW + datetime.timedelta(hours=hour)
        sources_fetch_batch(
            sources=sources_claim_batch(owner="w1", now=at, limit=10), owner="w1", now=at
        )

    kept = FetchAttempt.objects.order_by("source_id", "started_at")
    assert kept.count() == 6
    for source in Source.objects.all():
        times = list(kept.filter(source=source).values_list("started_at", flat=True))
        assert times == [NOW + datetime.timedelta(hours=2), NOW + datetime.timedelta(hours=3)]


def test_a_batch_runs_a_fixed_number_of_queries_per_source(servers, fetching):
    # Reading the keyword rules, making the hosts' rows, pruning the history
    # and queueing the tasks above feed happen once a batch, not once a source.
    for n in range(12):
        server = servers[n % 3]
        make_source(slug=f"s{n}", feed_url=server.serve(f"/feed{n}", feed_for(n)))
    batch = claimed("w1")  # with every source's default tags

    with CaptureQueriesContext(connection) as run:
        results = sources_fetch_batch(sources=batch, owner="w1", concurrency=3, now=NOW)

    assert [r.new for r in results] == [3] * 12
    statements = [query["sql"] for query in run.captured_queries]
    transactions = [sql for sql in statements if sql.startswith("SAVEPOINT")]
    # Django records an executemany as "<rows> times: <sql>".
    gathered = [sql.split(" times: ", 1) for sql in statements if " times: " in sql]
    single = [sql for sql in statements if " times: " not in sql]
    # Per source: the host's slot taken, the items its entries may be with
    # their tombstones, the insert with its cluster counts; per batch: the
    # rules, the three hosts' rows in one INSERT, and the prune. (It was 15 a
    # source, then 9 with the tombstones' own query, then 8 with a
    # transaction of its own, then 6 before the rows below were gathered.)
    assert len(single) - 2 * len(transactions) == 12 * 3 + 3, single
    # The fetches written together give their hosts back, write their
    # states and their history rows in three statements, whatever their number.
    kinds = ['UPDATE "feed_fetchhost"', 'UPDATE "feed_source"', 'INSERT INTO "feed_fetchattempt"']
    rows_of = {kind: 0 for kind in kinds}
    for rows, sql in gathered:
        rows_of[next(kind for kind in kinds if sql.startswith(kind))] += int(rows)
    assert rows_of == dict.fromkeys(kinds, 12)
    write_turns = len(gathered) // 3
    assert len(gathered) == 3 * write_turns
    # A turn of the batch's loop takes the next slots in one transaction (here
    # a savepoint), then writes the fetches that ended in another. Never more
    # than two of them a source.
    assert 2 <= len(transactions) <= 2 * 12
    assert write_turns <= 12


def fetches_ended(sources: list[Source], busy_hosts: dict) -> list[tuple[Future, object]]:
    """The sources' hosts taken and their fetches run to the end, not yet written."""
    flights, waiting, deferred = _start_all(
        deque(sources), room=len(sources), owner="w1", now=NOW, busy_hosts=busy_hosts, host_waits={}
    )
    assert (len(flights), waiting, deferred) == (len(sources), deque(), [])
    with ThreadPoolExecutor(max_workers=len(flights)) as pool:
        futures = [
            pool.submit(feed_fetch_read, url=flight.source.feed_url, now=flight.now)
            for flight in flights
        ]
    return list(zip(futures, flights, strict=True))


def test_fetches_that_end_together_are_written_in_one_transaction(servers, fetching):
    for n, server in enumerate(servers):
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))
    busy_hosts = {}
    finished = fetches_ended(claimed("w1"), busy_hosts)

    with CaptureQueriesContext(connection) as run:
        results = _finish_all(
            finished, owner="w1", busy_hosts=busy_hosts, tagger=keyword_tagger_active()
        )

    assert [(r.status, r.new) for r in results] == [(Outcome.OK, 3)] * 3
    savepoints = [q["sql"] for q in run.captured_queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 1, savepoints
    assert not FetchHost.objects.exclude(busy_owner="").exists()
    assert set(Source.objects.values_list("lease_owner", flat=True)) == {""}


def test_a_lost_lease_among_fetches_that_end_together_costs_the_others_nothing(servers, fetching):
    sources = [
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))
        for n, server in enumerate(servers)
    ]
    busy_hosts = {}
    finished = fetches_ended(claimed("w1"), busy_hosts)
    # The middle source's lease ran out during its fetch and another worker took it.
    Source.objects.filter(pk=sources[1].pk).update(lease_owner="w2")

    results = _finish_all(
        finished, owner="w1", busy_hosts=busy_hosts, tagger=keyword_tagger_active()
    )

    statuses = {result.source_id: result.status for result in results}
    assert [statuses[source.pk] for source in sources] == [Outcome.OK, Outcome.BUSY, Outcome.OK]
    assert [Item.objects.filter(source=source).count() for source in sources] == [3, 0, 3]
    assert FetchAttempt.objects.filter(source=sources[1]).count() == 0
    assert Source.objects.get(pk=sources[1].pk).lease_owner == "w2"
    # Every host is free again, the lost source's too: its request is over.
    assert not FetchHost.objects.exclude(busy_owner="").exists()
    for source in (sources[0], sources[2]):
        source.refresh_from_db()
        assert (source.lease_owner, source.consecutive_failures) == ("", 0)


def _fetch_threads_alive() -> set[int]:
    return {thread.ident for thread in threading.enumerate() if thread.name.startswith("fetch_")}


def test_a_workers_threads_start_with_it_and_serve_every_batch(server, fetching, monkeypatch):
    monkeypatch.setattr(netguard, "_ssl_contexts", {})
    before = _fetch_threads_alive()

    pool = fetch_threads(3)
    try:
        started = _fetch_threads_alive() - before
        # Every thread is up, and certifi's bundle loaded, before the first batch.
        assert len(started) == 3
        assert list(netguard._ssl_contexts) == [f"cafile:{certifi.where()}"]

        for round_ in range(2):
            make_source(feed_url=server.serve(f"/feed/{round_}", feed_for(round_)))
            results = sources_fetch_batch(
                sources=claimed(f"w{round_}"), owner=f"w{round_}", now=NOW, threads=pool
            )
            assert [r.status for r in results] == [Outcome.OK], [r.error for r in results]

        # No batch started threads of its own or shut the worker's down.
        assert _fetch_threads_alive() - before == started
        assert Item.objects.count() == 6
    finally:
        pool.shutdown()
    assert not (_fetch_threads_alive() - before)


def test_the_next_request_goes_out_before_the_fetch_that_ended_is_written(servers, fetching):
    _, second = (
        make_source(slug=f"s{n}", feed_url=servers[n].serve("/feed", feed_for(n))) for n in range(2)
    )

    with CaptureQueriesContext(connection) as run:
        sources_fetch_batch(sources=claimed("w1"), owner="w1", concurrency=1, now=NOW)

    statements = [query["sql"] for query in run.captured_queries]

    def first_with(text: str) -> int:
        return next(n for n, sql in enumerate(statements) if text in sql)

    # The second source's host is taken before the first source's items are.
    assert first_with(f"busy_owner = 'w1/{second.pk}'") < first_with("https://s0.example/")
    assert Item.objects.count() == 6


def test_a_batch_claims_more_as_its_sources_end_and_keeps_its_requests_going(servers, fetching):
    # The first source's feed answers only once the third source's request
    # has arrived. A worker holds two sources at once: only a batch that
    # claims the third when the second ends, while the first is still out,
    # gets there; one that waits for its claim to end times out.
    third_asked = threading.Event()

    def after_the_third(h):
        third_asked.wait(timeout=5)
        respond(h, feed_for(0))

    def third(h):
        third_asked.set()
        respond(h, feed_for(2))

    at = timezone.now()
    for n, feed_url in enumerate(
        [
            servers[0].route("/feed", after_the_third),
            servers[1].serve("/feed", feed_for(1)),
            servers[2].route("/feed", third),
        ]
    ):
        make_source(
            slug=f"s{n}", feed_url=feed_url, next_fetch_at=at - datetime.timedelta(hours=3 - n)
        )
    claims = Claims(owner="w1", limit=2)

    results = sources_fetch_batch(
        sources=claims.more(), owner="w1", concurrency=2, more=claims.more
    )

    assert [r.status for r in results] == [Outcome.OK] * 3, [r.error for r in results]
    assert Item.objects.count() == 9
    assert set(Source.objects.values_list("lease_owner", flat=True)) == {""}


def test_a_worker_holds_at_most_its_limit_and_stops_claiming_after_a_short_claim(fetching):
    for n in range(5):
        make_source(slug=f"s{n}")
    claims = Claims(owner="w1", limit=3)

    assert len(claims.more()) == 3
    assert claims.more(held=3) == []  # no claim made while it holds its limit
    assert len(claims.more(held=1)) == 2
    assert Source.objects.filter(lease_owner="w1").count() == 5
    assert claims.more(held=0) == []  # short: nothing more is due
    make_source(slug="s5")
    assert claims.more(held=0) == []
    assert Source.objects.get(slug="s5").lease_owner == ""


def test_claims_stop_when_the_worker_is_stopping(fetching):
    make_source(slug="s0")
    stopping = threading.Event()
    claims = Claims(owner="w1", limit=10, stopping=stopping)
    stopping.set()

    assert claims.more() == []
    assert Source.objects.get().lease_owner == ""


def test_a_turn_takes_its_hosts_slots_in_the_order_of_the_hosts(servers, fetching):
    # Two workers that take slots at once lock the hosts' rows in one order,
    # so neither waits for the other in a circle (a deadlock on PostgreSQL).
    by_host = sorted(servers, key=lambda server: host_key(server.url("/")))
    sources = [
        make_source(slug=f"s{n}", feed_url=server.serve("/feed", feed_for(n)))
        for n, server in enumerate(reversed(by_host))
    ]

    with CaptureQueriesContext(connection) as run:
        flights, waiting, deferred = _start_all(
            deque(sources), room=3, owner="w1", now=NOW, busy_hosts={}, host_waits={}
        )

    assert [flight.source for flight in flights] == list(reversed(sources))
    taken = [q["sql"] for q in run.captured_queries if "busy_owner = 'w1/" in q["sql"]]
    assert [sql.split("busy_owner = 'w1/")[1].split("'")[0] for sql in taken] == [
        str(source.pk) for source in reversed(sources)
    ]
    assert (waiting, deferred) == (deque(), [])
