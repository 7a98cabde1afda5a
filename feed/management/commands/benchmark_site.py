"""`manage.py benchmark_site`: how fast the public pages answer, on a throwaway database.

It creates Django's test database next to the configured one (SQLite or
PostgreSQL, whichever DATABASE_URL names), fills it with sources, tagged
items over many days, renders each public page through Django's test client
and prints the time of the first answer (caches cold), the median time,
requests per second and SQL queries of a full answer, and the median time of
a 304. The real database is never touched.
"""

import datetime
import random
import statistics
import time

from django.core.management.base import BaseCommand
from django.db import connection
from django.test import Client
from django.test.utils import setup_databases, teardown_databases
from django.utils import timezone
from taggit.models import Tag

from feed.models import Category, Item, Kind, Source, TaggedItem

TAG_NAMES = [f"标签{n}" for n in range(60)] + ["分布式训练", "推理", "量化", "大模型"]


class Command(BaseCommand):
    help = "Measure the public pages on a throwaway copy of the database (nothing real is touched)."

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, default=5000, help="visible items to create")
        parser.add_argument("--days", type=int, default=90, help="days the items spread over")
        parser.add_argument("--requests", type=int, default=50, help="requests per page")

    def handle(self, *args, items: int, days: int, requests: int, **options):
        # Only the databases come from the test machinery; templates render as in
        # production (setup_test_environment would instrument them and slow them down).
        databases = setup_databases(verbosity=0, interactive=False)
        try:
            self._fill(items=items, days=days)
            self._measure(requests=requests)
        finally:
            teardown_databases(databases, verbosity=0)

    def _fill(self, *, items: int, days: int) -> None:
        started = time.perf_counter()
        rng = random.Random(42)  # noqa: S311 - test data, not secrets
        kinds = list(Kind.values)
        sources = Source.objects.bulk_create(
            Source(name=f"Source {n}", slug=f"source-{n}", kind=kinds[n % len(kinds)])
            for n in range(40)
        )
        tags = Tag.objects.bulk_create(Tag(name=name, slug=name) for name in TAG_NAMES)
        now = timezone.now()
        statuses = ["published"] * 8 + ["featured"] + ["draft"]
        created = Item.objects.bulk_create(
            Item(
                source=(source := rng.choice(sources)),
                title=f"第 {n} 条：分布式训练与推理的新进展 {n}",
                url=f"https://bench.example/{n}",
                guid=f"bench-{n}",
                authors="Ada Moreau, Lin Qiao",
                summary="一段用于基准测试的摘要，讲训练与推理。" * 3,
                recommendation="值得一读。",
                kind=source.kind,
                category=rng.choice(Category.values),
                status=(status := rng.choice(statuses)),
                heat=rng.randrange(101),
                published_at=None
                if status == "draft"
                else now - datetime.timedelta(minutes=rng.randrange(days * 24 * 60)),
            )
            for n in range(items)
        )
        TaggedItem.objects.bulk_create(
            TaggedItem(content_object=item, tag=tag)
            for item in created
            for tag in rng.sample(tags, 3)
        )
        self.stdout.write(
            f"{items} items ({Item.objects.visible().count()} visible) over {days} days, "
            f"{len(sources)} sources, {len(tags)} tags; filled in "
            f"{time.perf_counter() - started:.1f}s on {connection.vendor}.\n"
        )

    def _measure(self, *, requests: int) -> None:
        source = Source.objects.order_by("pk").first()
        item = Item.objects.visible().newest_first().first()
        day = timezone.localdate(item.published_at).isoformat()
        urls = [
            "/",
            "/?tag=分布式训练",
            "/?kind=paper&category=model&featured=1",
            "/?q=训练",
            f"/?source={source.slug}",
            "/?before=" + (timezone.localdate() - datetime.timedelta(days=30)).isoformat(),
            f"/days/{day}/",
            item.get_absolute_url(),
            "/feed.xml",
            "/feed.atom",
            "/feed.json?tag=推理",
            "/tags/",
            "/sources/",
            "/sitemap.xml",
            "/sitemap-items.xml",
        ]
        client = Client(HTTP_HOST="127.0.0.1")
        header = (
            f"{'page':<44} {'first ms':>8} {'ms (median)':>11} {'req/s':>7} {'queries':>7} "
            f"{'304 ms':>7}"
        )
        self.stdout.write(header + "\n" + "-" * len(header))
        for url in urls:
            started = time.perf_counter()
            first = client.get(url)
            # The first answer also fills the cache (the tag facets) for the others.
            first_ms = (time.perf_counter() - started) * 1000
            if first.status_code != 200:
                self.stderr.write(f"{url}: HTTP {first.status_code}")
                continue
            queries = _QueryCounter()
            with connection.execute_wrapper(queries):
                client.get(url)
            timings = []
            for _ in range(requests):
                started = time.perf_counter()
                client.get(url)
                timings.append(time.perf_counter() - started)
            revalidations = []
            for _ in range(requests):
                started = time.perf_counter()
                client.get(url, headers={"if-none-match": first["ETag"]})
                revalidations.append(time.perf_counter() - started)
            median = statistics.median(timings)
            label = url if len(url) <= 44 else url[:41] + "..."
            self.stdout.write(
                f"{label:<44} {first_ms:>8.1f} {median * 1000:>11.1f} {1 / median:>7.0f} "
                f"{queries.count:>7} {statistics.median(revalidations) * 1000:>7.1f}"
            )


class _QueryCounter:
    """An execute wrapper that counts the SQL statements run through it."""

    def __init__(self):
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)
