"""The desk's upkeep, in one process: requeue tasks whose worker died, queue due webhook tries."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from aitop.tasklease import tasks_requeue_expired
from webhooks.tasks import deliveries_enqueue_due


class Command(BaseCommand):
    help = (
        "Every AITOP_SWEEP_INTERVAL seconds: put tasks RUNNING past their lease back in the "
        "queue (a killed worker's), and queue every webhook delivery that is due."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument(
            "--lease",
            type=float,
            help="seconds after which a RUNNING task counts as lost "
            "(default AITOP_TASK_LEASE_SECONDS)",
        )

    def handle(self, *args, once: bool, lease: float | None, **options):
        while True:
            reaped = tasks_requeue_expired(lease_seconds=lease)
            queued = deliveries_enqueue_due()
            if once or reaped.requeued or reaped.failed or queued:
                self.stdout.write(
                    f"{len(reaped.requeued)} tasks requeued, {len(reaped.failed)} given up, "
                    f"{len(queued)} webhook deliveries queued."
                )
            if once:
                return
            time.sleep(settings.AITOP_SWEEP_INTERVAL)
