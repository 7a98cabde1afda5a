import logging
import signal
import threading

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
        self.stopping = threading.Event()
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not self.stopping.is_set():
                self._round(once=once)
                if once:
                    return
                self.stopping.wait(interval)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _round(self, *, once: bool) -> None:
        try:
            ids = sources_enqueue_due()
        except DatabaseError:
            if once:
                raise
            # The database restarting must not end the schedule: try again.
            logger.exception("fetch_scheduler: could not queue the due sources")
            close_old_connections()
            return
        if ids or once:
            self.stdout.write(f"Queued {len(ids)} due sources.")

    def _stop(self, signum, frame):
        logger.info("fetch_scheduler: stopping")
        self.stopping.set()
