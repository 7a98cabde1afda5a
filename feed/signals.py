"""Hooks through which the apps above `feed` react to what happens in it (sent after commit).

- `items_arrived`: new items were stored by ingestion (`item_ids`, a list).
- `item_clicked`: a reader clicked through to an item's original (`item_id`).
"""

from django.dispatch import Signal

items_arrived = Signal()
item_clicked = Signal()
