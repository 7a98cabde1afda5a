"""`manage.py bench_seed_stories`: stories over the items `bench_seed` made, for `make bench`."""

from django.core.management.base import BaseCommand
from django.db import connection

from feed.management.reporting import seeded
from stories.benchdata import bench_stories


class Command(BaseCommand):
    help = (
        "Group the benchmark's seeded items into stories (one item in ten leads one, with "
        "the next one to three items), as a desk's stream has them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=42, help="random seed")

    def handle(self, *args, seed: int, **options):
        (stories, members), seconds = seeded(bench_stories, seed=seed)
        self.stdout.write(
            f"{stories} stories ({members} items in them) on {connection.vendor} in "
            f"{seconds:.1f} s."
        )
