"""Measure story matching and the heat recompute over a seeded archive (PostgreSQL only).

Seeds `--items` items spread over three years (about 900 a day), each with
index keys as real items have them: its own LSH bands and address, plus names,
models and concept pairs drawn from shared pools with a skew (a few names are
everywhere). Then times matching one new item that shares the most common keys,
and one full heat recompute. Run it on a database of its own:

    createdb -h 127.0.0.1 -U postgres aitop_bench_stories
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/aitop_bench_stories \
        .venv/bin/python manage.py migrate
    DATABASE_URL=… .venv/bin/python manage.py stories_bench --items 1000000
"""

import statistics
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from feed.models import Item, Source
from stories.heat import heat_recompute
from stories.index import candidate_ids, item_index, item_signature, signatures_of
from stories.matching.signature import key_hash
from stories.matching.verdict import verdict

OWN_KEYS = 25  # address and 24 bands: unique to the item
SHARED_KEYS = 12  # names, models and concept pairs, drawn from POOL with a skew
POOL = 5000


def pool_key(n: int) -> int:
    return key_hash(f"bench:{n}")


class Command(BaseCommand):
    help = "Seed a PostgreSQL database with N items and time matching and heat recompute."

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=10_000)
        parser.add_argument("--runs", type=int, default=20)

    def handle(self, *args, items: int, runs: int, **options):
        if connection.vendor != "postgresql":
            raise CommandError("stories_bench seeds with generate_series: use PostgreSQL.")
        if Item.objects.exists():
            raise CommandError("Run it on an empty database of its own.")
        started = time.perf_counter()
        self._seed(items)
        self.stdout.write(f"seeded {items} items in {time.perf_counter() - started:.0f} s")
        self.stdout.write(f"match one new item: {self._time_match(runs):.1f} ms (median)")
        started = time.perf_counter()
        heat_recompute()
        self.stdout.write(f"full heat recompute: {time.perf_counter() - started:.1f} s")

    def _seed(self, n: int) -> None:
        source = Source.objects.create(name="Bench", slug="bench", weight=60)
        now = timezone.now()
        pool = [pool_key(i) for i in range(POOL)]
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO feed_item (title, url, guid, authors, summary, recommendation, body,
                    kind, category, status, heat, published_at, original_published_at, clicks,
                    cluster_key, edited_fields, created_at, updated_at, version, source_id)
                SELECT 'Bench item ' || g, 'https://bench.example/' || g, '', '', '', '', '',
                    'news', '', 'published', 0, t, t, (g %% 50), '', '[]'::jsonb, t, t, 1, %s
                FROM generate_series(1, %s) AS g,
                    LATERAL (SELECT %s::timestamptz - (g * interval '96 seconds') AS t) AS moment
                """,
                [source.pk, n, now],
            )
            cursor.execute("CREATE TEMP TABLE bench_pool (n int PRIMARY KEY, key bigint)")
            cursor.execute(
                "INSERT INTO bench_pool SELECT i - 1, k FROM unnest(%s::bigint[])"
                " WITH ORDINALITY AS u(k, i)",
                [pool],
            )
            cursor.execute(
                """
                INSERT INTO stories_storysignal (item_id, key, at)
                SELECT i.id, ('x' || substr(md5(i.id || ':' || s), 1, 16))::bit(64)::bigint,
                    i.original_published_at
                FROM feed_item i, generate_series(1, %s) AS s
                """,
                [OWN_KEYS],
            )
            # Skewed: n = POOL × r³ puts most draws on the first few hundred keys.
            cursor.execute(
                """
                INSERT INTO stories_storysignal (item_id, key, at)
                SELECT d.id, p.key, d.at
                FROM (
                    SELECT i.id, i.original_published_at AS at,
                        floor(%s * power(random(), 3))::int AS n
                    FROM feed_item i, generate_series(1, %s) AS s
                ) AS d JOIN bench_pool p USING (n)
                """,
                [POOL, SHARED_KEYS],
            )
            cursor.execute("ANALYZE feed_item; ANALYZE stories_storysignal")

    def _time_match(self, runs: int) -> float:
        source = Source.objects.get(slug="bench")
        popular = [pool_key(i) for i in range(SHARED_KEYS)]
        timings = []
        for run in range(runs):
            item = Item.objects.create(
                source=source,
                title=f"Introducing Claude Opus 4.{run}",
                url=f"https://bench.example/new/{run}",
                kind="news",
                status="draft",
                original_published_at=timezone.now(),
            )
            started = time.perf_counter()
            signature = item_signature(item)
            keys = item_index(item=item, signature=signature) + popular
            ids = candidate_ids(item=item, keys=keys, at=signature.at)
            for theirs in signatures_of(ids, known={}).values():
                verdict(signature, theirs)
            timings.append((time.perf_counter() - started) * 1000)
        return statistics.median(timings)
