"""Recompute every item's heat now (what the periodic `recompute_heat` task does)."""

import time

from django.core.management.base import BaseCommand

from stories.heat import heat_recompute


class Command(BaseCommand):
    help = "Recompute the heat of every item in a few statements."

    def handle(self, *args, **options):
        started = time.perf_counter()
        changed = heat_recompute()
        took = time.perf_counter() - started
        self.stdout.write(f"heat recomputed in {took:.2f} s; {changed} items changed")
