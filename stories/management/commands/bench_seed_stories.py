"""`manage.py bench_seed_stories`: stories over the items `bench_seed` made, for `make bench`."""

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from feed.management.reporting import progress
from stories.benchdata import bench_stories


class Command(BaseCommand):
    help = (
        "Group the benchmark's seeded items into stories (one item in ten leads one, with "
        "the next one to three items), as a desk's stream has them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=42, help="random seed")

    def handle(self, *args, seed: int, **options):
        started = time.perf_counter()
        try:
            stories, members = bench_stories(
                seed=seed,
                progress=lambda rows, total, what: progress(rows, total=total, description=what),
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self.stdout.write(
            f"{stories} stories ({members} items in them) on {connection.vendor} in "
            f"{time.perf_counter() - started:.1f} s."
        )
