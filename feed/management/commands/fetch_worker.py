import logging
import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

from feed.ingest import Outcome
from feed.ingest.batch import Claims, fetch_threads, sources_fetch_batch
from feed.ingest.due import idle_seconds, sources_soon_due
from feed.ingest.leases import lease_owner_id
from feed.ingest.reading import ReaderPool

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    # No system checks at start: they import every URLconf and view (DRF, the
    # API schema), a third of a worker's start-up, for a process that serves
    # no page. `migrate` and `check --deploy` run them when a release goes out.
    requires_system_checks = []
    help = (
        "Fetch due sources continuously: claim a batch of due sources, fetch them "
        "AITOP_FETCH_CONCURRENCY at a time, write each one's items, repeat. Run one per "
        "core, on any number of machines; no source is fetched by two workers at once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--concurrency",
            type=int,
            default=settings.FETCH_CONCURRENCY,
            help="Fetches in flight at once (default: AITOP_FETCH_CONCURRENCY).",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=settings.FETCH_BATCH_SIZE,
            help="Due sources a worker holds at once (default: AITOP_FETCH_BATCH_SIZE).",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=settings.FETCH_SCHEDULER_INTERVAL,
            help="Seconds to wait when nothing is due (default: AITOP_FETCH_SCHEDULER_INTERVAL).",
        )
        parser.add_argument(
            "--readers",
            type=int,
            default=settings.FETCH_READERS,
            help=(
                "Processes that parse fetched documents beside the fetch threads; 0 parses "
                "in the threads (default: AITOP_FETCH_READERS)."
            ),
        )
        parser.add_argument(
            "--until-idle",
            action="store_true",
            help=(
                "Stop once no source is due, none is due within seconds (deferred for its "
                "host) and none is being fetched (for cron, benchmarks and tests)."
            ),
        )

    def handle(self, *args, concurrency, batch_size, interval, readers, until_idle, **options):
        if concurrency < 1 or batch_size < 1:
            raise CommandError("--concurrency and --batch-size must be at least 1.")
        if readers < 0:
            raise CommandError("--readers must be 0 or more.")
        self.verbosity = options["verbosity"]
        self.stopping = threading.Event()
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        totals = {"sources": 0, "new": 0, "failed": 0}
        # The readers first, while this process runs one thread and holds no
        # database connection: they are forked then, not spawned (reading.py).
        self.readers = ReaderPool(readers) if readers else None
        self.threads = fetch_threads(concurrency)
        try:
            while not self.stopping.is_set():
                fetched = self._round(concurrency=concurrency, batch_size=batch_size, totals=totals)
                if fetched is None:
                    continue
                if not fetched:
                    if until_idle and not sources_soon_due(now=timezone.now()):
                        break
                    longest = min(interval, 0.2) if until_idle else interval
                    self.stopping.wait(idle_seconds(now=timezone.now(), longest=longest))
        finally:
            self.threads.shutdown(cancel_futures=True)
            if self.readers:
                self.readers.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        self.stdout.write(
            f"{totals['sources']} sources fetched: {totals['new']} new items, "
            f"{totals['failed']} failed."
        )

    def _round(self, *, concurrency: int, batch_size: int, totals: dict) -> int | None:
        """A batch, claiming more as it goes; how many sources it held (None: a database error)."""
        owner = lease_owner_id()
        try:
            claims = Claims(owner=owner, limit=batch_size, stopping=self.stopping)
            sources = claims.more()
            results = sources_fetch_batch(
                sources=sources,
                owner=owner,
                concurrency=concurrency,
                readers=self.readers,
                threads=self.threads,
                more=claims.more,
            )
        except DatabaseError:
            # The database restarting must not end the worker: the leases of
            # this batch expire, and the sources are claimed again.
            logger.exception("fetch_worker: a batch failed")
            close_old_connections()
            self.stopping.wait(1.0)
            return None
        done = [r for r in results if r.status not in {Outcome.DEFERRED, Outcome.BUSY}]
        totals["sources"] += len(done)
        totals["new"] += sum(r.new for r in done)
        totals["failed"] += sum(r.status == Outcome.FAILED for r in done)
        if results and self.verbosity >= 2:
            self.stdout.write(f"Fetched {len(done)} of {len(results)} claimed sources.")
        return len(results)

    def _stop(self, signum, frame):
        # The batch in hand is finished first: its sources are leased to us.
        logger.info("fetch_worker: stopping after this batch")
        self.stopping.set()
