"""Signals feed sends so that apps above it can react without feed importing them."""

import datetime
import functools

from django.db import transaction
from django.dispatch import Signal

#: Sent after a fetch that created items has committed, with `source_id` and
#: `fetched_at` (the fetch's time, which every item it wrote carries).
items_ingested = Signal()


def items_ingested_on_commit(*, source_id: int, fetched_at: datetime.datetime) -> None:
    """Send `items_ingested` once the current transaction commits; a receiver's error is logged."""
    transaction.on_commit(
        functools.partial(
            items_ingested.send_robust, sender="feed", source_id=source_id, fetched_at=fetched_at
        )
    )
