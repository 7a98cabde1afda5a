"""Stories (the same news from many sources), the index that finds them, and heat."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from feed.models import Item


class Story(models.Model):
    """Items that report the same news; one of them, the lead, stands for all.

    `lead` and `source_count` are kept by `story_rerank` whenever the members
    change, so the site reads them without counting.
    """

    lead = models.ForeignKey(
        Item,
        verbose_name=_("lead"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # The editors chose the lead; the automatic order no longer moves it.
    lead_pinned = models.BooleanField(_("lead chosen by an editor"), default=False)
    source_count = models.PositiveIntegerField(_("sources"), default=1)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("story")
        verbose_name_plural = _("stories")

    def __str__(self) -> str:
        return f"#{self.pk}"


class StoryItem(models.Model):
    """An item's place in its story: rank 0 is the lead, then by source weight and time."""

    class Reason(models.TextChoices):
        URL = "url", _("same address")
        ARXIV = "arxiv", _("same arXiv paper")
        TEXT = "text", _("near-identical text")
        ENTITIES = "entities", _("same names and numbers")
        EDITOR = "editor", _("an editor")

    item = models.OneToOneField(
        Item,
        verbose_name=_("item"),
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="story_link",
    )
    story = models.ForeignKey(
        Story,
        verbose_name=_("story"),
        on_delete=models.CASCADE,
        related_name="members",
        db_index=False,
    )
    rank = models.PositiveIntegerField(_("rank"), default=0)
    matched_by = models.CharField(_("matched by"), max_length=10, choices=Reason.choices)
    score = models.FloatField(_("match score"), default=0.0)
    # An editor split the item out: automatic matching never moves it again.
    kept_apart = models.BooleanField(_("kept apart by an editor"), default=False)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        verbose_name = _("story member")
        verbose_name_plural = _("story members")
        indexes = [
            # A story's members in lead order; and "is a better-ranked sibling visible?".
            models.Index(fields=["story", "rank"], name="storyitem_story_rank_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.story_id}:{self.item_id}"


class StorySignal(models.Model):
    """One key an item is found by: a canonical address, an arXiv id, a model name or an
    LSH band of its MinHash. Two items sharing a key are candidates for one story.

    Kept in the database, not in a process's memory, so every web process and
    worker sees the same index and it survives restarts. `at` is the item's time:
    candidates are looked up within a window, so a common key costs the same
    whatever the archive holds.
    """

    item = models.ForeignKey(
        Item, on_delete=models.CASCADE, related_name="story_signals", db_index=False
    )
    key = models.BigIntegerField(_("key"))
    at = models.DateTimeField(_("item time"))

    class Meta:
        verbose_name = _("story index key")
        verbose_name_plural = _("story index keys")
        indexes = [
            # Candidates: items sharing any of these keys, near this time.
            models.Index(fields=["key", "at"], name="storysignal_key_at_idx"),
            # Re-indexing an item drops its old keys.
            models.Index(fields=["item"], name="storysignal_item_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.key}"


class HeatScore(models.Model):
    """The stored parts of an item's heat, so anyone can see why it is at 83°.

    `heat` is copied to `feed.Item.heat`, which the stream and the API order by.
    """

    item = models.OneToOneField(
        Item, primary_key=True, on_delete=models.CASCADE, related_name="heat_score"
    )
    source_weight = models.PositiveSmallIntegerField(_("source weight"), default=0)
    featured = models.BooleanField(_("featured"), default=False)
    adjustment = models.SmallIntegerField(
        _("editor's adjustment"),
        default=0,
        help_text=_("From −50 to +50 points, added before the age decay."),
    )
    clicks = models.PositiveIntegerField(_("clicks"), default=0)
    story_sources = models.PositiveIntegerField(_("sources in the story"), default=1)
    age_hours = models.FloatField(_("age in hours"), default=0.0)
    pinned = models.PositiveSmallIntegerField(
        _("pinned heat"),
        null=True,
        blank=True,
        help_text=_("0–100: shown instead of the computed heat while set."),
    )
    heat = models.PositiveSmallIntegerField(_("heat"), default=0)
    computed_at = models.DateTimeField(_("computed"), null=True, blank=True)

    class Meta:
        verbose_name = _("heat")
        verbose_name_plural = _("heat")
        constraints = [
            models.CheckConstraint(
                condition=Q(adjustment__gte=-50, adjustment__lte=50),
                name="heatscore_adjustment_range",
            ),
            models.CheckConstraint(
                condition=Q(pinned__isnull=True) | Q(pinned__lte=100),
                name="heatscore_pinned_0_100",
            ),
            models.CheckConstraint(condition=Q(heat__lte=100), name="heatscore_heat_0_100"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.heat}°"


class BriefChoice(models.Model):
    """An editor's choice for one day's brief: pin a story's item in, or drop it."""

    class Choice(models.TextChoices):
        PIN = "pin", _("Pinned")
        DROP = "drop", _("Dropped")

    day = models.DateField(_("day"))
    item = models.ForeignKey(
        Item, verbose_name=_("item"), on_delete=models.CASCADE, related_name="brief_choices"
    )
    choice = models.CharField(_("choice"), max_length=4, choices=Choice.choices)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("daily brief choice")
        verbose_name_plural = _("daily brief choices")
        constraints = [
            models.UniqueConstraint(fields=["day", "item"], name="briefchoice_one_per_day_item"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.choice} {self.item_id}"
