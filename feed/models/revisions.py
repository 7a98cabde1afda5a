"""`ItemRevision`: a change to an item's fields, proposed, applied, accepted or declined.

The rules that write revisions are in `feed/revisions.py`.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class RevisionQuerySet(models.QuerySet):
    def pending(self) -> "RevisionQuerySet":
        return self.filter(status=ItemRevision.Status.PENDING)


class ItemRevision(models.Model):
    """A change to an item's fields: proposed (waiting for a chief), applied, accepted or declined.

    At most one pending revision per item and origin for feeds and imports
    (a newer fetch replaces the older proposal: the feed only ever has one
    latest version of a story), enforced by a partial unique constraint.
    Editors' proposals are one per editor and item for the same reason.
    """

    class Origin(models.TextChoices):
        FEED = "feed", _("feed refresh")
        IMPORT = "import", _("import")
        API = "api", _("API")
        EDITOR = "editor", _("editor")

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for a chief editor")
        APPLIED = "applied", _("applied (the item was not live)")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        SUPERSEDED = "superseded", _("replaced by a newer proposal")

    item = models.ForeignKey(
        "feed.Item",
        verbose_name=_("item"),
        on_delete=models.CASCADE,
        related_name="revisions",
        db_index=False,
    )
    origin = models.CharField(_("origin"), max_length=10, choices=Origin.choices)
    status = models.CharField(_("state"), max_length=10, choices=Status.choices)
    changes = models.JSONField(_("changes"), default=dict)
    #: The item's values before the change, for the reviewer's side-by-side view.
    previous = models.JSONField(_("values before"), default=dict)
    base_version = models.PositiveIntegerField(_("based on version"))
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("proposed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    #: Who or what proposed it, kept after an account is deleted ("feed: lab-blog").
    proposed_by_name = models.CharField(_("proposed by (name)"), max_length=200)
    proposed_at = models.DateTimeField(_("proposed at"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_by_name = models.CharField(_("decided by (name)"), max_length=150, blank=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    note = models.TextField(_("note"), blank=True)

    objects = RevisionQuerySet.as_manager()

    class Meta:
        verbose_name = _("revision")
        verbose_name_plural = _("revisions")
        ordering = ["-proposed_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    status__in=["pending", "applied", "accepted", "declined", "superseded"]
                ),
                name="revision_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(origin__in=["feed", "import", "api", "editor"]),
                name="revision_origin_valid",
            ),
            models.UniqueConstraint(
                fields=["item", "origin", "proposed_by_name"],
                condition=Q(status="pending"),
                name="revision_one_pending_per_proposer",
            ),
        ]
        indexes = [
            # An item's revisions, newest first (its form), and "has it a pending one".
            models.Index("item", "status", name="revision_item_status_idx"),
            # The queue of proposals waiting for a chief, oldest first.
            models.Index("proposed_at", condition=Q(status="pending"), name="revision_pending_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.get_origin_display()} · {self.item_id} · {self.get_status_display()}"
