"""AI drafts of an item's fields, where each came from, and what they cost."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from feed.models import Item


class Field(models.TextChoices):
    """The fields enrichment writes; `headline` lives here, the others on the item."""

    HEADLINE = "headline", _("headline")
    SUMMARY = "summary", _("summary")
    RECOMMENDATION = "recommendation", _("why it matters")
    CATEGORY = "category", _("category")
    TAGS = "tags", _("tags")


class Enrichment(models.Model):
    """An item's enrichment state and its headline in the content language.

    One row per item, created the first time enrichment looks at it; the
    original title stays on the item, the headline sits beside it here.
    """

    class State(models.TextChoices):
        PENDING = "pending", _("Waiting to be enriched")
        DONE = "done", _("Enriched")
        WAITING = "waiting", _("Waiting for tomorrow's budget")
        FAILED = "failed", _("Failed")

    item = models.OneToOneField(
        Item,
        verbose_name=_("item"),
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="enrichment",
    )
    state = models.CharField(
        _("AI state"), max_length=10, choices=State.choices, default=State.PENDING
    )
    language = models.CharField(_("content language"), max_length=10, blank=True)
    headline = models.CharField(
        _("headline"),
        max_length=200,
        blank=True,
        help_text=_("The title in the content language; the original title stays on the item."),
    )
    # Fields the backend could not write (e.g. the offline backend's "why").
    needs_editor = models.JSONField(_("left for an editor"), default=list, blank=True)
    error = models.TextField(_("last error"), blank=True)
    attempts = models.PositiveSmallIntegerField(_("failed attempts"), default=0)
    enriched_at = models.DateTimeField(_("enriched at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("AI enrichment")
        verbose_name_plural = _("AI enrichments")
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["pending", "done", "waiting", "failed"]),
                name="enrichment_state_valid",
            ),
        ]
        indexes = [
            # `enrich_items --pending`: the items still to do.
            models.Index(fields=["state"], condition=~Q(state="done"), name="enrichment_todo_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.get_state_display()}"


class Run(models.Model):
    """One call to a backend for one item: the provenance every draft points to."""

    class Outcome(models.TextChoices):
        OK = "ok", _("OK")
        INVALID = "invalid", _("Answer refused")
        FAILED = "failed", _("Failed")

    item = models.ForeignKey(
        Item, verbose_name=_("item"), on_delete=models.CASCADE, related_name="enrichment_runs"
    )
    backend = models.CharField(_("backend"), max_length=20)
    model = models.CharField(_("model"), max_length=200, blank=True)
    prompt_version = models.CharField(_("prompt version"), max_length=50, blank=True)
    language = models.CharField(_("content language"), max_length=10)
    started_at = models.DateTimeField(_("when"))
    tokens_in = models.PositiveIntegerField(_("tokens in"), default=0)
    tokens_out = models.PositiveIntegerField(_("tokens out"), default=0)
    cost = models.DecimalField(_("cost (USD)"), max_digits=12, decimal_places=6, default=0)
    outcome = models.CharField(_("outcome"), max_length=10, choices=Outcome.choices)
    error = models.TextField(_("error"), blank=True)
    # The backend's answer as received (bounded), for an editor checking a refusal.
    answer = models.TextField(_("answer"), blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        verbose_name = _("AI run")
        verbose_name_plural = _("AI runs")
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.backend} {self.model} @ {timezone.localtime(self.started_at):%Y-%m-%d %H:%M}"


class FieldDraft(models.Model):
    """What the AI wrote for one field of one item, and what the field held before.

    One row per item and field: the latest draft. An editor's final text is
    the item's field itself; the admin shows the two side by side.
    """

    item = models.ForeignKey(
        Item, verbose_name=_("item"), on_delete=models.CASCADE, related_name="field_drafts"
    )
    field = models.CharField(_("field"), max_length=20, choices=Field.choices)
    # Text for text fields, a list of names for tags.
    value = models.JSONField(_("AI draft"))
    replaced = models.JSONField(_("value before"), null=True, blank=True)
    run = models.ForeignKey(
        Run, verbose_name=_("run"), on_delete=models.PROTECT, related_name="drafts"
    )
    created_at = models.DateTimeField(_("written at"))

    class Meta:
        verbose_name = _("AI draft of a field")
        verbose_name_plural = _("AI drafts of fields")
        constraints = [
            models.UniqueConstraint(fields=["item", "field"], name="fielddraft_one_per_field"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}.{self.field}"


class UsageDay(models.Model):
    """Tokens and money spent on one day (TIME_ZONE), against the daily budget.

    `tokens_reserved` holds estimates of calls in flight: a worker reserves
    before it calls, by a conditional UPDATE, so workers together never
    overspend; the estimate is replaced by the real count when the call ends.
    """

    day = models.DateField(_("day"), unique=True)
    calls = models.PositiveIntegerField(_("calls"), default=0)
    tokens_in = models.PositiveBigIntegerField(_("tokens in"), default=0)
    tokens_out = models.PositiveBigIntegerField(_("tokens out"), default=0)
    tokens_reserved = models.PositiveBigIntegerField(_("tokens reserved"), default=0)
    cost = models.DecimalField(_("cost (USD)"), max_digits=14, decimal_places=6, default=0)

    class Meta:
        verbose_name = _("AI spend per day")
        verbose_name_plural = _("AI spend per day")
        ordering = ["-day"]

    def __str__(self) -> str:
        return str(self.day)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out
