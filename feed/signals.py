"""Signals feed sends so that apps above it can react without feed importing them.

- `items_ingested`: a fetch that created items has committed (`source_id`, `fetched_at`).
- `items_arrived`: new items were stored by ingestion (`item_ids`, a list), after commit.
- `item_clicked`: a reader clicked through to an item's original (`item_id`).
"""

import datetime
import functools

from django.db import transaction
from django.dispatch import Signal

#: Sent after a fetch that created items has committed, with `source_id` and
#: `fetched_at` (the fetch's time, which every item it wrote carries).
items_ingested = Signal()
items_arrived = Signal()
item_clicked = Signal()


def items_ingested_on_commit(*, source_id: int, fetched_at: datetime.datetime) -> None:
    """Send `items_ingested` once the current transaction commits; a receiver's error is logged."""
    transaction.on_commit(
        functools.partial(
            items_ingested.send_robust, sender="feed", source_id=source_id, fetched_at=fetched_at
        )
    )
