"""Time the offline enricher over the feed corpus in tests/data/feeds (docs/enrichment.md).

Run on a scratch database, never on one with real items:

    rm -f /tmp/enrich-measure.sqlite3
    export DEBUG=1 TASKS_BACKEND=dummy AITOP_ENRICH_ON_INGEST=0
    export DATABASE_URL=sqlite:////tmp/enrich-measure.sqlite3
    .venv/bin/python manage.py migrate -v0
    .venv/bin/python manage.py shell -v0 < docs/examples/enrichment_measure.py
"""

import statistics
import time
from pathlib import Path

from django.utils import timezone

from enrichment.backends import OfflineBackend
from enrichment.models import Enrichment
from enrichment.services import items_enrich
from feed.ingest.normalise import entries_normalise
from feed.ingest.parse import parse_feed
from feed.ingest.upsert import items_upsert
from feed.models import Item, Source

now = timezone.now()
files = sorted(p for p in Path("tests/data/feeds").iterdir() if p.suffix in (".xml", ".json"))
unreadable = []  # the corpus holds broken feeds on purpose
for n, path in enumerate(files):
    url = f"https://feed{n}.example/feed"
    try:
        parsed = parse_feed(path.read_bytes(), url=url)
        entries, _ = entries_normalise(parsed.entries, base_url=url, now=now, limit=200)
    except Exception as error:
        unreadable.append(f"{path.name}: {error}")
        continue
    source = Source.objects.create(name=f"Corpus {n}", slug=f"corpus-{n}", feed_url=url)
    items_upsert(source=source, entries=entries, now=now)

items = list(Item.objects.drafts().select_related("source").prefetch_related("tags"))
backend = OfflineBackend()
seconds = []
for item in items:
    started = time.perf_counter()
    backend.answer(item=item, language="zh-hans", now=now)
    seconds.append(time.perf_counter() - started)
started = time.perf_counter()
summary = items_enrich(items=items, backend=backend)
total = time.perf_counter() - started

ms = sorted(s * 1000 for s in seconds)
print(f"{len(files)} files ({len(unreadable)} unreadable), {len(items)} drafts")
print(
    f"backend.answer alone: median {statistics.median(ms):.2f} ms, "
    f"p95 {ms[int(0.95 * len(ms))]:.2f} ms, max {ms[-1]:.2f} ms"
)
print(
    f"items_enrich: {total:.2f} s, {1000 * total / len(items):.2f} ms per item; {summary.as_dict()}"
)
left = [e.needs_editor for e in Enrichment.objects.all()]
for field in ("headline", "summary", "category", "recommendation"):
    print(f"left for an editor: {field}: {sum(field in names for names in left)} of {len(left)}")
