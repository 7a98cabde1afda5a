from django.core.management.base import BaseCommand
from django.utils import timezone

from feed.ingest.due import fetch_queue, sources_due
from feed.management.reporting import table


def duration(delta) -> str:
    """A delay as people read it: 42 s, 7 min, 3.5 h."""
    if delta is None:
        return "-"
    seconds = delta.total_seconds()
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Command(BaseCommand):
    help = (
        "Show the fetch queue: sources due now, being fetched, due within the hour, failing, "
        "and how late the most overdue one is; then the most overdue sources."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--overdue", type=int, default=10, help="How many overdue sources to list (10)."
        )

    def handle(self, *args, overdue: int, **options):
        now = timezone.now()
        queue = fetch_queue(now=now)
        self.stdout.write(
            table(
                ["active", "due now", "fetching", "due within 1 h", "failing", "lag"],
                [
                    (
                        queue.active,
                        queue.due,
                        queue.fetching,
                        queue.due_next_hour,
                        queue.failing,
                        duration(queue.lag),
                    )
                ],
            )
        )
        late = list(sources_due(now=now)[:overdue])
        if late:
            self.stdout.write("")
            self.stdout.write(
                table(
                    ["source", "due since", "interval", "last status", "failures"],
                    [
                        (
                            source.slug,
                            duration(now - (source.next_fetch_at or source.created_at)),
                            duration(source.fetch_interval),
                            source.last_status or "never fetched",
                            source.consecutive_failures,
                        )
                        for source in late
                    ],
                )
            )
