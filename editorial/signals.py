"""Hooks for what follows a transition (webhooks, cache bumps), sent after commit.

Every signal is sent with `sender=Item` and the keyword arguments `item` (as it
is after the move), `action` (a `LogAction` value), `from_status`,
`to_status` and `by` (the user). Receivers run after the transaction has
committed, and one that raises is logged without stopping the others.

- `item_transitioned`: every move.
- `item_published`: the item became public (published, or featured from a
  draft). Its `published_at` may lie in the future: it is scheduled.
- `item_featured`: the item became featured.
- `item_unfeatured`: featured back to plainly published.
- `item_unpublished`: a public item was taken off the site (rejected).
"""

from django.dispatch import Signal

item_transitioned = Signal()
item_published = Signal()
item_featured = Signal()
item_unfeatured = Signal()
item_unpublished = Signal()
