"""Ingestion's own records: keyword rules, tombstones, fetch history, hosts."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from feed.models.sources import Source


class KeywordRule(models.Model):
    """An editor's rule: items whose title or summary mention the pattern get the tag.

    The pattern is plain text, matched without regard to case; where it begins
    or ends with a Latin letter or digit it must stand as a whole word there
    ("RAG" does not tag "storage"), while Chinese patterns match anywhere.
    One rule per pattern and tag, whatever their case.
    """

    pattern = models.CharField(
        _("pattern"),
        max_length=200,
        help_text=_("Words to look for in titles and summaries, e.g. “diffusion model” or 大模型."),
    )
    tag = models.CharField(_("tag"), max_length=100, help_text=_("The tag to give."))
    is_active = models.BooleanField(
        _("active"), default=True, help_text=_("Only active rules tag newly fetched items.")
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("keyword rule")
        verbose_name_plural = _("keyword rules")
        ordering = ["tag", "pattern"]
        constraints = [
            models.UniqueConstraint(
                Lower("pattern"), Lower("tag"), name="keywordrule_unique_pattern_tag"
            ),
            models.CheckConstraint(
                condition=~Q(pattern="") & ~Q(tag=""), name="keywordrule_not_blank"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pattern} → {self.tag}"


class TombstoneManager(models.Manager):
    def record(self, rows) -> None:
        """Remember the canonical URLs of deleted items (rows of url, title, source id)."""
        now = timezone.now()
        tombstones = [
            Tombstone(url=url, title=title[:500], source_id=source_id, deleted_at=now)
            for url, title, source_id in rows
        ]
        if tombstones:
            self.bulk_create(
                tombstones,
                batch_size=500,
                update_conflicts=True,
                unique_fields=["url"],
                update_fields=["title", "source", "deleted_at"],
            )


class Tombstone(models.Model):
    """The canonical URL of an item an editor deleted: ingestion never brings it back.

    Recorded by `Item.delete()` and `ItemQuerySet.delete()` themselves, so every
    way of deleting (the admin's form, its bulk action, code) leaves one.
    Deleting the tombstone lets the story be fetched again.
    """

    url = models.URLField(_("original URL"), max_length=2000, unique=True)
    title = models.CharField(_("title"), max_length=500, blank=True)
    source = models.ForeignKey(
        Source,
        verbose_name=_("source"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tombstones",
    )
    deleted_at = models.DateTimeField(_("deleted at"), default=timezone.now)

    objects = TombstoneManager()

    class Meta:
        verbose_name = _("deleted item")
        verbose_name_plural = _("deleted items")
        ordering = ["-deleted_at"]

    def __str__(self) -> str:
        return self.title or self.url


class FetchAttempt(models.Model):
    """One fetch of a source: how it ended, what it brought, how long it took.

    Written in the same transaction as the items it imported, so the history
    never claims items that a crash rolled back.
    """

    source = models.ForeignKey(
        Source,
        verbose_name=_("source"),
        on_delete=models.CASCADE,
        related_name="fetch_attempts",
        db_index=False,
    )
    started_at = models.DateTimeField(_("started"))
    duration = models.DurationField(_("duration"))
    status = models.CharField(_("status"), max_length=20, choices=Source.Status.choices)
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    items_new = models.PositiveIntegerField(_("new"), default=0)
    items_updated = models.PositiveIntegerField(_("updated"), default=0)
    items_unchanged = models.PositiveIntegerField(_("unchanged"), default=0)
    items_skipped = models.PositiveIntegerField(_("skipped"), default=0)
    # {"reason": count} for the entries that were not taken.
    skipped_reasons = models.JSONField(_("why entries were skipped"), default=dict, blank=True)
    error = models.TextField(_("error"), blank=True)
    warning = models.TextField(_("warning"), blank=True)
    # Where redirects ended; shown for information, never saved as the feed URL.
    final_url = models.URLField(_("final URL"), max_length=2000, blank=True)
    worker = models.CharField(_("worker"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("fetch")
        verbose_name_plural = _("fetch history")
        ordering = ["-started_at", "-id"]
        indexes = [
            # A source's history, newest first (the admin, and pruning old rows).
            models.Index("source", models.F("started_at").desc(), name="fetchattempt_source_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source} @ {timezone.localtime(self.started_at):%Y-%m-%d %H:%M}"


class FetchHost(models.Model):
    """Politeness per host (name and port): AITOP_FETCH_PER_HOST requests at a time, then a gap.

    Each row is one slot of a host (slot 0, 1, …; hosts with a gap of their
    own in AITOP_FETCH_HOST_GAPS, such as arXiv, only ever use slot 0). A
    worker takes a slot by a conditional UPDATE of `busy_until` before it
    sends a request and sets `next_request_at` when it is done, so workers on
    any number of machines keep to the same pace.
    """

    host = models.CharField(_("host"), max_length=300)
    slot = models.PositiveSmallIntegerField(_("slot"), default=0)
    busy_owner = models.CharField(_("fetched by"), max_length=100, blank=True)
    busy_until = models.DateTimeField(_("busy until"), null=True, blank=True)
    next_request_at = models.DateTimeField(_("next request"), null=True, blank=True)

    class Meta:
        verbose_name = _("host")
        verbose_name_plural = _("hosts")
        constraints = [
            models.UniqueConstraint(fields=["host", "slot"], name="fetchhost_host_slot_unique"),
        ]

    def __str__(self) -> str:
        return self.host
