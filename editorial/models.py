"""The audit trail: every status change and every editor's edit of an item."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from feed.models import Item


class LogAction(models.TextChoices):
    """What an entry of an item's history records."""

    CREATE = "create", _("Created")
    EDIT = "edit", _("Edited")
    PUBLISH = "publish", _("Published")
    FEATURE = "feature", _("Featured")
    UNFEATURE = "unfeature", _("Unfeatured")
    REJECT = "reject", _("Rejected")
    RESTORE = "restore", _("Restored")
    RECOMMEND = "recommend", _("Recommended to a chief")
    ACCEPT = "accept", _("Accepted a revision")
    DECLINE = "decline", _("Declined a revision")


class ItemLogEntry(models.Model):
    """One thing that happened to an item: a transition, an edit or its creation by hand.

    Rows are only ever added, never changed: this is the record of who did what
    and when. Each row carries the item version it produced, so a refused save
    can name the person whose change it would have overwritten. `by_name`
    keeps the actor's username even after the account is deleted.
    """

    Action = LogAction

    item = models.ForeignKey(
        Item,
        verbose_name=_("item"),
        on_delete=models.CASCADE,
        related_name="log_entries",
        # Indexed by editorial_log_item_idx, which leads with the item.
        db_index=False,
    )
    action = models.CharField(_("action"), max_length=10, choices=Action.choices)
    from_status = models.CharField(_("from"), max_length=10, choices=Item.Status.choices)
    to_status = models.CharField(_("to"), max_length=10, choices=Item.Status.choices)
    version = models.PositiveIntegerField(_("version"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    by_name = models.CharField(_("by (username)"), max_length=150, blank=True)
    at = models.DateTimeField(_("at"))
    note = models.TextField(_("note"), blank=True)
    changed_fields = models.JSONField(_("changed fields"), default=list, blank=True)

    class Meta:
        verbose_name = _("item history entry")
        verbose_name_plural = _("item history")
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=LogAction.values),
                name="editorial_log_action_valid",
            ),
        ]
        indexes = [
            # An item's history, newest first (the change form, "who changed it last").
            models.Index("item", models.F("at").desc(), name="editorial_log_item_idx"),
            # The dashboard: "featured today".
            models.Index("action", "at", name="editorial_log_action_at_idx"),
        ]

    def __str__(self) -> str:
        at = timezone.localtime(self.at)  # the site's clock, as every time in the admin
        return f"{self.get_action_display()} · {self.item_id} · {at:%Y-%m-%d %H:%M}"


class ItemRecommendation(models.Model):
    """An editor's "ready for a chief" on a draft, with a note; chiefs see these drafts first.

    One per item (a second editor's recommendation replaces the first); it is
    deleted when the item leaves the drafts, so the queue never ranks a
    decided item by an old note.
    """

    item = models.OneToOneField(
        Item, verbose_name=_("item"), on_delete=models.CASCADE, related_name="recommendation_mark"
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    by_name = models.CharField(_("by (username)"), max_length=150, blank=True)
    at = models.DateTimeField(_("at"))
    note = models.TextField(_("note for the chief"), blank=True)

    class Meta:
        verbose_name = _("recommendation to a chief")
        verbose_name_plural = _("recommendations to a chief")

    def __str__(self) -> str:
        return f"{self.item_id} · {self.by_name}"
