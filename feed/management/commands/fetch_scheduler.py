import logging
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from feed.tasks import sources_enqueue_due

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Queue a fetch for every source that is due, every few seconds, for the workers "
        "(manage.py db_worker) to run. Run one or more anywhere; a source is never queued twice."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--interval",
            type=float,
            default=settings.FETCH_SCHEDULER_INTERVAL,
            help="Seconds between two rounds (default: AITOP_FETCH_SCHEDULER_INTERVAL, 15).",
        )
        parser.add_argument("--once", action="store_true", help="Run one round and stop.")

    def handle(self, *args, interval: float, once: bool, **options):
        self.running = True
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        while self.running:
            try:
                ids = sources_enqueue_due()
            except DatabaseError:
                if once:
                    raise
                # The database restarting must not end the schedule: try again.
                logger.exception("fetch_scheduler: could not queue the due sources")
                close_old_connections()
                ids = []
            if ids or once:
                self.stdout.write(f"Queued {len(ids)} due sources.")
            if once:
                return
            time.sleep(interval)

    def _stop(self, signum, frame):
        logger.info("fetch_scheduler: stopping")
        self.running = False
