"""The queries a fetch runs per source read an index range, never the whole item table.

A full scan per fetch is what made a thousand small sources slow down as the
table grew. SQLite's plans follow fixed rules (no statistics needed), so they
can be checked on a small table: "SEARCH" is an index range, "SCAN" reads all.
"""

import datetime

import pytest
from django.db import connection
from django.utils import timezone

from enrichment.services import fetch_pending_candidates
from feed.ingest.insert import _insert_sql, known_statement
from feed.models import Source

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner rules"),
]


def plan(sql: str, params: list) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        return "\n".join(row[-1] for row in cursor.fetchall())


def test_the_inserts_count_of_other_sources_with_the_story_uses_the_partial_cluster_index():
    sql, _ = _insert_sql("sqlite", 2)
    found = plan(sql, [None] * sql.count("%s"))

    assert "SEARCH o USING INDEX item_cluster_idx" in found, found
    assert "SCAN o" not in found, found


def test_the_inserts_count_of_other_sources_runs_once_a_statement_not_once_a_row():
    # Run again for each row, the count of a story that 10,000 entries of one
    # feed share read its growing index range 10,000 times (23 s instead of 1).
    sql, _ = _insert_sql("sqlite", 121)
    found = plan(sql, [None] * sql.count("%s"))

    assert "MATERIALIZE h" in found, found


def test_enrichments_pick_up_after_a_fetch_uses_the_source_and_fetch_time_index():
    source = Source.objects.create(name="One", slug="one")
    now = timezone.now()
    batch = [(source.pk, now), (source.pk + 1, now + datetime.timedelta(seconds=2))]
    plan = fetch_pending_candidates(batch).explain()

    assert "SEARCH feed_item USING INDEX item_source_fetched_idx" in plan, plan
    assert "SCAN feed_item" not in plan, plan


def test_a_fetchs_look_up_of_known_items_and_tombstones_reads_index_ranges():
    source = Source.objects.create(name="One", slug="one")
    found = plan(*known_statement(source_id=source.pk, guids=["g1", "g2"], urls=["https://a/1"]))

    assert "MULTI-INDEX OR" in found, found
    assert "USING INDEX item_unique_guid_per_source" in found, found
    assert "SEARCH feed_tombstone USING COVERING INDEX" in found, found
    assert "SCAN feed_item" not in found, found
    assert "SCAN feed_tombstone" not in found, found
