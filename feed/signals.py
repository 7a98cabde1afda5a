"""Signals feed sends so that apps above it can react without feed importing them.

- `items_ingested`: fetches that created items have committed (`fetches`, a
  list of (source id, fetch time) pairs).
- `items_arrived`: new items were stored by ingestion (`item_ids`, a list), after commit.
- `item_clicked`: a reader clicked through to an item's original (`item_id`).

A fetch worker fetches sources in batches; inside `arrivals_gathered()` the
two ingestion signals are sent for many fetches at once instead of once a
source, so that a receiver queues one task for them (a task is a row and a
few milliseconds of the worker's time). What is gathered goes out at the
latest every GATHER_FETCHES fetches or GATHER_SECONDS, so that a worker
killed in the middle of a long batch leaves few committed items unannounced
(`manage.py stories_index` and `enrich_items --pending` catch up on those).
"""

import contextlib
import dataclasses
import datetime
import logging
import threading
import time

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

#: Sent after fetches that created items have committed, with `fetches`: (source
#: id, fetch time) pairs; every item a fetch wrote or saw carries its fetch time.
items_ingested = Signal()
items_arrived = Signal()
item_clicked = Signal()


GATHER_FETCHES = 25
GATHER_SECONDS = 5.0


@dataclasses.dataclass
class _Arrivals:
    item_ids: list[int] = dataclasses.field(default_factory=list)
    fetches: list[tuple[int, datetime.datetime]] = dataclasses.field(default_factory=list)
    since: float = dataclasses.field(default_factory=time.monotonic)

    def due(self) -> bool:
        return (
            len(self.fetches) >= GATHER_FETCHES or time.monotonic() - self.since >= GATHER_SECONDS
        )

    def flush(self) -> None:
        gathered = _Arrivals(self.item_ids, self.fetches)
        self.item_ids, self.fetches, self.since = [], [], time.monotonic()
        _send_arrivals(gathered)


# The batch being gathered in this thread (a worker's main thread writes every fetch).
_gathering = threading.local()


@contextlib.contextmanager
def arrivals_gathered():
    """Send `items_arrived` and `items_ingested` for many of the block's commits at once.

    Sent when GATHER_FETCHES fetches or GATHER_SECONDS have gathered, and
    when the block ends. What committed before an error in the block is still
    sent; what a rolled-back transaction would have sent never is (it was
    never gathered).
    """
    arrivals = _Arrivals()
    outer = getattr(_gathering, "arrivals", None)
    _gathering.arrivals = arrivals
    try:
        yield
    finally:
        _gathering.arrivals = outer
        arrivals.flush()


def items_arrived_on_commit(item_ids: list[int]) -> None:
    """Send `items_arrived` for these new items once the current transaction commits."""
    transaction.on_commit(lambda: _arrived(list(item_ids)))


def items_ingested_on_commit(*, source_id: int, fetched_at: datetime.datetime) -> None:
    """Send `items_ingested` for this fetch once the current transaction commits."""
    transaction.on_commit(lambda: _ingested((source_id, fetched_at)))


def _arrived(item_ids: list[int]) -> None:
    arrivals = getattr(_gathering, "arrivals", None)
    if arrivals is not None:
        # Sent with its fetch (items_ingested comes right after, same commit).
        arrivals.item_ids.extend(item_ids)
    else:
        _send_arrivals(_Arrivals(item_ids=item_ids))


def _ingested(fetch: tuple[int, datetime.datetime]) -> None:
    arrivals = getattr(_gathering, "arrivals", None)
    if arrivals is not None:
        arrivals.fetches.append(fetch)
        if arrivals.due():
            arrivals.flush()
    else:
        _send_arrivals(_Arrivals(fetches=[fetch]))


def _send_arrivals(arrivals: _Arrivals) -> None:
    """Send what was gathered; a receiver's error is logged and never stops a fetch."""
    sent = []
    if arrivals.item_ids:
        sent += items_arrived.send_robust(sender="feed", item_ids=arrivals.item_ids)
    if arrivals.fetches:
        sent += items_ingested.send_robust(sender="feed", fetches=arrivals.fetches)
    for receiver, answer in sent:
        if isinstance(answer, Exception):
            logger.error("%r failed after a fetch", receiver, exc_info=answer)
