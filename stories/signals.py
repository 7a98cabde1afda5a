"""What the stories app announces, after commit: a story's members or lead changed.

Sent with `sender=Story`, `story_id` and `item_ids` (the members). Heat and the
page caches listen.
"""

from django.dispatch import Signal

story_changed = Signal()
