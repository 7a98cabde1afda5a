"""EXPLAIN ANALYZE of every SQL query the public pages run, cold (no cache), on PostgreSQL.

    .venv/bin/python bench/explain.py --database-url postgres://…/aitop_bench_1m > plans.md

Renders each page of bench/site.py (and the indexes, sitemap and feeds) with
Django's test client, captures its queries and prints each one's plan, then a
summary line per page. Exits non-zero when any plan scans `feed_item` or
`feed_taggeditem` sequentially.
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEQ_SCAN = re.compile(r"Seq Scan on (feed_item|feed_taggeditem)\b")
EXTRA_PAGES = [
    ("tags index", "/tags/"),
    ("sources index", "/sources/"),
    ("sitemap", "/sitemap.xml"),
    ("feed.atom", "/feed.atom"),
    ("feed.json", "/feed.json"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.site import environment, pages

    os.environ.update(environment(args), CACHE_URL="dummy://")
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    client = Client(HTTP_HOST="127.0.0.1")
    scans = []
    summary = []
    month = f"{timezone.localdate():%Y-%m}"
    # The items' sitemap is one section a month (feed/sitemaps.py): this month's.
    sections = [("sitemap items, this month", f"/sitemap-items-{month}.xml")]
    for label, path in pages() + EXTRA_PAGES + sections:
        with CaptureQueriesContext(connection) as captured:
            status = client.get(path).status_code
        print(f"## {label}: `{path}` (HTTP {status}, {len(captured)} queries)\n")
        worst = 0.0
        for query in captured.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING ON) " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
            took = float(re.search(r"Execution Time: ([\d.]+) ms", plan).group(1))
            worst = max(worst, took)
            if SEQ_SCAN.search(plan):
                scans.append((label, sql))
            print(f"```sql\n{sql}\n```\n\n```\n{plan}\n```\n")
        summary.append(f"| {label} | {len(captured)} | {worst:.1f} |")
    print("## Summary\n\n| page | queries | slowest query ms |\n| --- | ---: | ---: |")
    print("\n".join(summary))
    print(f"\nSequential scans of items or tagged items: {len(scans)}")
    for label, sql in scans:
        print(f"- {label}: {sql[:200]}")
    sys.exit(1 if scans else 0)


if __name__ == "__main__":
    main()
