"""`manage.py bench_seed --items N [--days D]`: fill an empty database for the benchmark."""

import math

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from feed.benchdata import bench_seed
from feed.management.reporting import seeded


class Command(BaseCommand):
    help = (
        "Fill the configured (empty) database with synthetic sources, tags and items for "
        "`make bench`: COPY on PostgreSQL, large batches elsewhere."
    )

    def add_arguments(self, parser):
        parser.add_argument("--items", type=int, required=True, help="items to create")
        parser.add_argument(
            "--days", type=int, help="days the items spread over (default: 1,000 items a day)"
        )
        parser.add_argument("--sources", type=int, default=200, help="sources to create")
        parser.add_argument("--seed", type=int, default=42, help="random seed")

    def handle(self, *args, items: int, days: int | None, sources: int, seed: int, **options):
        if items < 1 or sources < 1 or (days is not None and days < 1):
            raise CommandError("--items, --days and --sources must be at least 1.")
        days = days or max(1, math.ceil(items / 1000))
        result, seconds = seeded(bench_seed, items=items, days=days, sources=sources, seed=seed)
        self.stdout.write(
            f"{result.items} items ({result.tagged} tags on them) over {days} days, "
            f"{result.sources} sources, {result.tags} tags on {connection.vendor} in "
            f"{seconds:.1f} s."
        )
