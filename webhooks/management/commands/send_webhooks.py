"""Queue every webhook delivery that is due: for cron, or where the task backend cannot defer."""

from django.core.management.base import BaseCommand

from webhooks.tasks import deliveries_enqueue_due


class Command(BaseCommand):
    help = "Queue a try for every webhook delivery whose time has come."

    def handle(self, *args, **options):
        ids = deliveries_enqueue_due()
        self.stdout.write(f"{len(ids)} deliveries queued.")
