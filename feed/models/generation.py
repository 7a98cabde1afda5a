"""The publish generation, the one row every public validator derives from."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Generation(models.Model):
    """The publish generation: one row whose number moves whenever a reader's view may change.

    Every public validator and cache key derives from it (see feed/freshness.py
    and docs/caching.md), so a 304 reads one row by its primary key, or one
    cache entry, instead of aggregating over the items.
    """

    # Always 1: the row is the site's, not an item's.
    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    value = models.PositiveBigIntegerField(_("generation"), default=1)
    # Moves strictly forward (at least a second each bump), so a client that
    # revalidates by date alone sees every change: HTTP dates count seconds.
    changed_at = models.DateTimeField(_("changed at"))
    # The earliest publish time still in the future when the row was written:
    # passing it makes a scheduled item visible without any write.
    next_publish_at = models.DateTimeField(_("next scheduled publish"), null=True, blank=True)

    class Meta:
        verbose_name = _("publish generation")
        verbose_name_plural = _("publish generations")
        constraints = [models.CheckConstraint(condition=Q(id=1), name="generation_single_row")]

    def __str__(self) -> str:
        return str(self.value)
