"""Transactions that only move leases and host slots do not wait for PostgreSQL's disk."""

import datetime
from collections import deque

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from feed.ingest.batch import _start_all, sources_claim_batch
from feed.ingest.leases import leases_transaction
from tests.factories import make_source

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's synchronous_commit"),
]
NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
NO_WAIT = "SET LOCAL synchronous_commit = off"


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def test_only_the_lease_transaction_commits_without_waiting_for_the_disk():
    server_default = synchronous_commit()
    with leases_transaction():
        inside = synchronous_commit()
    after = synchronous_commit()
    with transaction.atomic():
        other = synchronous_commit()

    assert server_default != "off"
    assert (inside, after, other) == ("off", server_default, server_default)


def test_inside_another_transaction_the_setting_is_left_alone():
    # SET LOCAL would last to the end of the outer transaction and its writes.
    server_default = synchronous_commit()
    with transaction.atomic():
        with leases_transaction():
            inside = synchronous_commit()
        rest = synchronous_commit()

    assert inside == rest == server_default


def test_a_workers_claims_and_slots_commit_without_waiting(server, fetching):
    make_source(feed_url=server.serve("/feed", b"<rss/>"))

    with CaptureQueriesContext(connection) as claim:
        sources = sources_claim_batch(owner="w1", now=NOW, limit=10)
    with CaptureQueriesContext(connection) as slots:
        flights, _, _ = _start_all(
            deque(sources), room=1, owner="w1", now=NOW, busy_hosts={}, host_waits={}
        )

    def statements(run) -> list[str]:
        return [query["sql"] for query in run.captured_queries if query["sql"] != "BEGIN"]

    assert len(flights) == 1
    assert statements(claim)[0] == NO_WAIT
    assert statements(slots)[0] == NO_WAIT
    assert "feed_fetchhost" in statements(slots)[1]
