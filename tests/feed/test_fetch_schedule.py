"""Scheduling 10,000 sources: spread over their interval, intervals that adapt within bounds."""

import datetime

import pytest

from feed.ingest import ingest_source
from feed.ingest.schedule import interval_adapt, spread
from tests.factories import make_source
from tests.loopback import rss, rss_item

NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
HOUR = datetime.timedelta(hours=1)
MINUTE = datetime.timedelta(minutes=1)


def test_sources_fetched_together_fall_due_evenly_over_their_interval():
    due = [spread(now=NOW, interval=HOUR, key=key) for key in range(10_000)]

    assert all(NOW + HOUR / 2 <= at < NOW + HOUR * 1.5 for at in due)
    per_six_minutes = [0] * 10
    for at in due:
        per_six_minutes[int(((at - NOW - HOUR / 2) / HOUR) * 10)] += 1
    # 1,000 a slot if perfectly even; never the whole lot in one minute.
    assert all(850 <= count <= 1150 for count in per_six_minutes), per_six_minutes


def test_a_source_keeps_its_phase_from_one_fetch_to_the_next():
    first = spread(now=NOW, interval=HOUR, key=42)
    second = spread(now=first + 3 * MINUTE, interval=HOUR, key=42)

    assert second - first == HOUR


def test_a_feed_that_brings_something_is_fetched_more_often_down_to_the_shortest_interval():
    intervals = [HOUR]
    for _ in range(4):
        intervals.append(
            interval_adapt(interval=intervals[-1], lower=15 * MINUTE, upper=24 * HOUR, changed=True)
        )

    assert intervals == [HOUR, 30 * MINUTE, 15 * MINUTE, 15 * MINUTE, 15 * MINUTE]


def test_a_feed_that_never_changes_drifts_to_the_longest_interval():
    interval = HOUR
    for _ in range(12):
        interval = interval_adapt(
            interval=interval, lower=15 * MINUTE, upper=6 * HOUR, changed=False
        )

    assert interval == 6 * HOUR


@pytest.mark.django_db
def test_a_fetch_without_anything_new_lengthens_the_interval_and_a_new_entry_shortens_it(
    server, fetching
):
    source = make_source(
        feed_url=server.serve("/feed", rss(rss_item(1))),
        fetch_interval=HOUR,
        fetch_interval_min=20 * MINUTE,
        fetch_interval_max=2 * HOUR,
    )
    ingest_source(source, now=NOW)
    source.refresh_from_db()
    assert source.fetch_interval == 30 * MINUTE

    for step in range(1, 5):
        ingest_source(source, now=NOW + step * HOUR)
        source.refresh_from_db()
    assert source.fetch_interval == 2 * HOUR  # 45, 67.5, 101.25 min, then the upper bound

    server.serve("/feed", rss(rss_item(1), rss_item(2)))
    ingest_source(source, now=NOW + 6 * HOUR)
    source.refresh_from_db()
    assert source.fetch_interval == HOUR
    assert source.next_fetch_at == spread(now=NOW + 6 * HOUR, interval=HOUR, key=source.pk)
