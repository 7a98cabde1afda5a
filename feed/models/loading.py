"""Rows into model instances without `Model.__init__`'s walk over every field.

Django builds each instance it loads by calling the model with one argument
per concrete field, a placeholder for each deferred one, and `__init__` then
walks all of them and sends pre_init and post_init. For a page of 50 cards
with their sources (102 instances, 17 of the item's 25 columns loaded) that
walk cost 2.1 ms of a cold stream page's CPU; putting the loaded values into
the instance's `__dict__` costs 0.3 ms (docs/benchmarks.md).

The result is the instance `__init__` would make: every loaded field's
attname set, a deferred one left out of `__dict__` (so reading it loads it,
and `save()` leaves it alone, as Django does), and the state of an instance
read from `db`. `from_db()` is Django's documented hook for this. Models
whose loading someone watches (a pre_init or post_init receiver) are built
the usual way.
"""

from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init


class LeanLoading:
    """Mixin (before `models.Model`) for models read many rows at a time."""

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        # No receiver of either signal at all (the usual case) is read from
        # the lists, 20 times cheaper than asking about this model a row.
        watched = pre_init.receivers or post_init.receivers
        if watched and (pre_init.has_listeners(cls) or post_init.has_listeners(cls)):
            return super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        instance = cls.__new__(cls)
        # Field names are attnames ("source_id"), as Model.__init__ sets them;
        # no descriptor of a concrete field does more on a new instance.
        instance.__dict__.update(zip(field_names, values, strict=True))
        state = instance._state = ModelState()
        state.adding = False
        state.db = db
        if fetch_mode is not None:
            state.fetch_mode = fetch_mode
        return instance
