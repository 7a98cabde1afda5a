"""PostgreSQL's plan of a fetch's INSERT reads the cluster index by key, never all of it.

A join of the index to the new rows (`cluster_key IN (SELECT … FROM rows)`)
was planned as a walk of the whole partial index for every fetch, work that
grew with the table; the count for each story must be an index range.
"""

import json

import pytest
from django.db import connection

from feed.ingest.insert import _insert_sql

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner"),
]


def test_the_inserts_count_of_other_sources_reads_the_cluster_index_by_key():
    sql, slots = _insert_sql("postgresql", 0)
    rows = [
        {
            "title": "t",
            "url": f"https://x.example/{n}",
            "guid": "",
            "authors": "",
            "summary": "",
            "body": "",
            "cluster_key": f"story-{n}",
            "original_published_at": "2026-11-30T00:00:00+00:00",
        }
        for n in range(3)
    ]
    params = [json.dumps(rows), 1]
    for slot in slots:
        params += [50, 10] if slot == "heat" else [None]

    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "Index Cond: ((cluster_key)::text = (s.story)::text)" in plan, plan
    assert "Seq Scan on feed_item" not in plan, plan
