"""Sources: where items come from, with their kind, category and tags."""

import datetime

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from taggit.managers import TaggableManager
from taggit.models import TaggedItemBase

from feed.models.loading import LeanLoading


class Kind(models.TextChoices):
    """What sort of publication an item is; the stream's first row of tabs."""

    BLOG = "blog", _("Blog")
    NEWS = "news", _("News")
    TWEET = "tweet", _("Tweet")
    PAPER = "paper", _("Paper")


class Category(models.TextChoices):
    """What an item is about; the stream's second row of tabs."""

    MODEL = "model", _("AI models")
    PRODUCT = "product", _("AI products")
    INDUSTRY = "industry", _("Industry")
    PAPER = "paper", _("Papers")
    TIP = "tip", _("Tips")


class TaggedSource(TaggedItemBase):
    """A source's default tag; every item fetched from it starts with these."""

    content_object = models.ForeignKey(
        "Source", on_delete=models.CASCADE, related_name="tagged_sources"
    )

    class Meta:
        verbose_name = _("default tag of a source")
        verbose_name_plural = _("default tags of sources")
        constraints = [
            models.UniqueConstraint(
                fields=["content_object", "tag"], name="taggedsource_unique_tag_per_source"
            ),
        ]


class Source(LeanLoading, models.Model):
    """A place items come from: a feed we fetch, or a name for items added by hand.

    Fetch state (ETag, Last-Modified, failures, next fetch, lease) is kept on
    the row itself: the scheduler picks due sources with one indexed query and
    a worker claims one by a conditional UPDATE of its lease.
    """

    class Status(models.TextChoices):
        """How the last fetch ended."""

        OK = "ok", _("OK")
        NOT_MODIFIED = "not_modified", _("Not modified")
        PARTIAL = "partial", _("Imported with warnings")
        FAILED = "failed", _("Failed")

    name = models.CharField(_("name"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=100, unique=True, allow_unicode=True)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.BLOG)
    homepage_url = models.URLField(_("homepage URL"), max_length=1000, blank=True)
    feed_url = models.URLField(
        _("feed URL"),
        max_length=1000,
        blank=True,
        help_text=_("RSS, Atom, arXiv, GitHub Atom or JSON Feed. Empty for hand-made items."),
    )
    handle = models.CharField(
        _("handle"), max_length=100, blank=True, help_text=_("For example @ClementDelangue.")
    )
    default_category = models.CharField(
        _("default category"), max_length=10, choices=Category.choices, blank=True
    )
    default_tags = TaggableManager(
        verbose_name=_("default tags"),
        through=TaggedSource,
        blank=True,
        related_name="default_for_sources",
    )
    weight = models.PositiveSmallIntegerField(
        _("weight"),
        default=50,
        help_text=_("0–100: how much this source counts towards an item's heat."),
    )
    is_active = models.BooleanField(_("active"), default=True)
    fetch_interval = models.DurationField(
        _("fetch interval"),
        default=datetime.timedelta(hours=1),
        help_text=_(
            "How often the feed is fetched now. Ingestion adapts it within the bounds below: "
            "shorter while the feed brings new entries, longer while it does not."
        ),
    )
    fetch_interval_min = models.DurationField(
        _("shortest fetch interval"), default=datetime.timedelta(minutes=15)
    )
    fetch_interval_max = models.DurationField(
        _("longest fetch interval"), default=datetime.timedelta(hours=24)
    )

    # Fetch state, written by ingestion.
    etag = models.CharField(_("ETag"), max_length=500, blank=True)
    last_modified = models.CharField(_("Last-Modified"), max_length=100, blank=True)
    last_fetched_at = models.DateTimeField(_("last fetched"), null=True, blank=True)
    last_status = models.CharField(
        _("last status"), max_length=20, choices=Status.choices, blank=True
    )
    last_http_status = models.PositiveSmallIntegerField(
        _("last HTTP status"), null=True, blank=True
    )
    consecutive_failures = models.PositiveIntegerField(_("consecutive failures"), default=0)
    next_fetch_at = models.DateTimeField(_("next fetch"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True)
    last_warning = models.TextField(_("last warning"), blank=True)
    # A worker holds a source while it fetches it; an expired lease is free again,
    # so a worker killed mid-fetch never keeps a source from being fetched.
    lease_owner = models.CharField(_("lease owner"), max_length=100, blank=True)
    lease_expires_at = models.DateTimeField(_("lease expires"), null=True, blank=True)

    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("source")
        verbose_name_plural = _("sources")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(weight__gte=0, weight__lte=100), name="source_weight_0_100"
            ),
            models.CheckConstraint(condition=Q(kind__in=Kind.values), name="source_kind_valid"),
            # The adaptive interval needs a range to move in.
            models.CheckConstraint(
                condition=Q(fetch_interval_min__lte=models.F("fetch_interval_max")),
                name="source_fetch_interval_bounds",
                violation_error_message=_(
                    "The shortest fetch interval cannot be longer than the longest."
                ),
            ),
        ]
        indexes = [
            # The scheduler: "active sources whose next fetch has come".
            models.Index(
                fields=["next_fetch_at"],
                condition=Q(is_active=True),
                name="source_due_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name, allow_unicode=True)[:100]
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return f"{reverse('feed:stream')}?source={self.slug}"
