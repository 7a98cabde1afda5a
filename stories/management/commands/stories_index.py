"""Put items that are not in the story index yet into it (after an upgrade or a bulk load)."""

from django.core.management.base import BaseCommand

from stories.index import items_without_signals
from stories.membership import items_match


class Command(BaseCommand):
    help = "Index and match every item not yet in the story index, oldest first."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=500)

    def handle(self, *args, batch: int, **options):
        total = joined = 0
        done: set[int] = set()
        while ids := [
            pk
            for pk in items_without_signals(limit=batch + len(done)).values_list("pk", flat=True)
            if pk not in done
        ][:batch]:
            # An item with nothing to index by (no usable text or address) stays
            # keyless: remember it so the loop moves on.
            done.update(ids)
            joined += items_match(item_ids=ids)
            total += len(ids)
        self.stdout.write(f"indexed {total} items; {joined} joined a story")
