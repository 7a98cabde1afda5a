"""The queries a fetch runs per source read an index range, never the whole item table.

A full scan per fetch is what made a thousand small sources slow down as the
table grew. SQLite's plans follow fixed rules (no statistics needed), so they
can be checked on a small table: "SEARCH" is an index range, "SCAN" reads all.
"""

import pytest
from django.db import connection
from django.utils import timezone

from enrichment.services import fetch_pending
from feed.ingest.upsert import cluster_other_sources, items_maybe_known
from feed.models import Source

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner rules"),
]


def test_a_fetchs_cluster_lookup_uses_the_partial_cluster_index():
    source = Source.objects.create(name="One", slug="one")
    plan = cluster_other_sources({"key-a", "key-b"}, source=source).explain()

    assert "SEARCH feed_item USING INDEX item_cluster_idx" in plan, plan
    assert "SCAN feed_item" not in plan, plan


def test_enrichments_pick_up_after_a_fetch_uses_the_source_and_fetch_time_index():
    source = Source.objects.create(name="One", slug="one")
    plan = fetch_pending([(source.pk, timezone.now())]).explain()

    assert "SEARCH feed_item USING INDEX item_source_fetched_idx" in plan, plan
    assert "SCAN feed_item" not in plan, plan


def test_a_fetchs_look_up_of_known_items_reads_two_index_ranges():
    source = Source.objects.create(name="One", slug="one")
    plan = items_maybe_known(source=source, guids=["g1", "g2"], urls=["https://a/1"]).explain()

    assert "MULTI-INDEX OR" in plan, plan
    assert "USING INDEX item_unique_guid_per_source" in plan, plan
    assert "SCAN feed_item" not in plan, plan
