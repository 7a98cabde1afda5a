"""Sources, items and their tags: the data every part of AITOP reads."""

import datetime
import zoneinfo

from django.conf import settings
from django.db import connections, models, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from taggit.managers import TaggableManager
from taggit.models import Tag, TaggedItemBase

from feed.search import search_words, word_condition


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


class Source(models.Model):
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


class TaggedItem(TaggedItemBase):
    """An item's tag, with a real foreign key (no generic relation) so tag
    filters and facets are plain indexed joins."""

    # Neither key gets an index of its own: the unique constraint leads with the
    # item and the named index below leads with the tag.
    content_object = models.ForeignKey(
        "Item", on_delete=models.CASCADE, related_name="tagged_items", db_index=False
    )
    tag = models.ForeignKey(
        Tag, on_delete=models.CASCADE, related_name="feed_taggeditem_items", db_index=False
    )

    class Meta:
        verbose_name = _("tag of an item")
        verbose_name_plural = _("tags of items")
        constraints = [
            models.UniqueConstraint(
                fields=["content_object", "tag"], name="taggeditem_unique_tag_per_item"
            ),
        ]
        indexes = [
            # Tag filter and facets go from the tag to its items.
            models.Index(fields=["tag", "content_object"], name="taggeditem_tag_item_idx"),
        ]


# The one definition of which statuses a reader may ever see. Kept as one Q so
# the partial indexes below and `ItemQuerySet.visible()` compile to the same SQL.
PUBLIC_STATUSES = ("published", "featured")
PUBLIC_Q = Q(status__in=PUBLIC_STATUSES)


class ItemQuerySet(models.QuerySet):
    """Named states of items; public code starts from `visible()`."""

    def visible(self, *, now: datetime.datetime | None = None) -> "ItemQuerySet":
        """What a reader may see: published or featured, publish time come."""
        return self.filter(PUBLIC_Q, published_at__lte=now or timezone.now())

    def drafts(self) -> "ItemQuerySet":
        return self.filter(status=Item.Status.DRAFT)

    def featured(self) -> "ItemQuerySet":
        return self.filter(status=Item.Status.FEATURED)

    def scheduled(self, *, now: datetime.datetime | None = None) -> "ItemQuerySet":
        """Published or featured, but not yet due."""
        return self.filter(PUBLIC_Q, published_at__gt=now or timezone.now())

    def on_day(self, day: datetime.date, *, tz: zoneinfo.ZoneInfo | None = None) -> "ItemQuerySet":
        """Items published on `day` in the site's time zone (or `tz`)."""
        tz = tz or timezone.get_current_timezone()
        start = datetime.datetime.combine(day, datetime.time.min, tzinfo=tz)
        return self.filter(
            published_at__gte=start, published_at__lt=start + datetime.timedelta(days=1)
        )

    def tagged(self, *slugs: str) -> "ItemQuerySet":
        """Items carrying every one of the given tag slugs (one query to look up their ids).

        Filtering on the tag's id, not a join on its slug, lets PostgreSQL use
        what it knows of each tag's frequency: for a tag on a quarter of a
        million items it walks the stream index (20 ms), for a rare one it reads
        the tag's rows; joined by slug it guessed an average tag and read every
        row of a common one (2 s at 1M items).
        """
        if not slugs:
            return self
        ids = dict(Tag.objects.filter(slug__in=slugs).values_list("slug", "pk"))
        if len(ids) < len(set(slugs)):
            return self.none()
        queryset = self
        for slug in slugs:
            queryset = queryset.filter(tagged_items__tag_id=ids[slug])
        return queryset

    def newest_first(self) -> "ItemQuerySet":
        return self.order_by("-published_at", "-id")

    def for_cards(self) -> "ItemQuerySet":
        """Everything an item card shows, fetched in a fixed number of queries."""
        return self.select_related("source").prefetch_related("tags")

    def before(self, moment: datetime.datetime) -> "ItemQuerySet":
        """Items published strictly before `moment` (the stream's "older" pages)."""
        return self.filter(published_at__lt=moment)

    def search(self, text: str) -> "ItemQuerySet":
        """Items whose title, summary, "why" or authors contain every word of `text`.

        A case-insensitive substring match served by an index (feed/search.py),
        so Chinese, which has no spaces between words, is found by any run of
        characters, e.g. 训练 or 模.
        """
        vendor = connections[self.db].vendor
        queryset = self
        for word in search_words(text):
            queryset = queryset.filter(word_condition(word=word, vendor=vendor))
        return queryset

    def _window(self, window: int | None):
        """These items' ids, or only the newest `window` of them (a range of the stream index)."""
        if window is None:
            return self.order_by().values("pk")
        return self.newest_first().values("pk")[:window]

    def tag_counts(self, *, window: int | None = None) -> models.QuerySet:
        """Tags of these items (or the newest `window`), with `item_count`, most used first."""
        return (
            Tag.objects.filter(feed_taggeditem_items__content_object__in=self._window(window))
            .annotate(item_count=models.Count("feed_taggeditem_items"))
            .order_by("-item_count", Lower("name"), "pk")
        )

    def source_counts(self, *, window: int | None = None) -> models.QuerySet:
        """The sources of these items (or their newest `window`), each with `item_count`."""
        return (
            Source.objects.filter(items__in=self._window(window))
            .annotate(item_count=models.Count("items"))
            .order_by("-item_count", Lower("name"), "pk")
        )

    def related_to(self, item: "Item") -> "ItemQuerySet":
        """Other items sharing tags with `item`, those sharing the most first."""
        # Reads the item's prefetched tags when the caller fetched them.
        tag_ids = [tag.pk for tag in item.tags.all()]
        if not tag_ids:
            return self.none()
        return (
            self.filter(tagged_items__tag__in=tag_ids)
            .exclude(pk=item.pk)
            .annotate(shared_tags=models.Count("tagged_items"))
            .order_by("-shared_tags", "-published_at", "-id")
        )

    def delete(self):
        """Delete the items, leaving a tombstone for each so no feed brings them back."""
        with transaction.atomic(using=self.db):
            Tombstone.objects.record(self.values_list("url", "title", "source_id"))
            return super().delete()


class Item(models.Model):
    """One story: a post, an article, a tweet or a paper, and its review state.

    The canonical URL is unique across all sources: the same story reached
    through two feeds is one item. The guid is unique only within its source,
    because feeds choose guids freely and two feeds may reuse the same one.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")
        FEATURED = "featured", _("Featured")
        REJECTED = "rejected", _("Rejected")

    # Indexed by item_source_published_idx, which leads with the source.
    source = models.ForeignKey(
        Source,
        verbose_name=_("source"),
        on_delete=models.PROTECT,
        related_name="items",
        db_index=False,
    )
    title = models.CharField(_("title"), max_length=500)
    url = models.URLField(_("original URL"), max_length=2000, unique=True)
    guid = models.CharField(_("guid"), max_length=500, blank=True)
    authors = models.CharField(_("authors"), max_length=1000, blank=True)
    original_published_at = models.DateTimeField(_("originally published"), null=True, blank=True)
    summary = models.TextField(_("summary"), blank=True)
    recommendation = models.TextField(
        _("why it matters"), blank=True, help_text=_("One sentence aimed at a reader.")
    )
    body = models.TextField(
        _("body excerpt"), blank=True, help_text=_("Sanitised HTML taken from the feed.")
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    category = models.CharField(_("category"), max_length=10, choices=Category.choices, blank=True)
    tags = TaggableManager(verbose_name=_("tags"), through=TaggedItem, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    heat = models.PositiveSmallIntegerField(_("heat"), default=0, help_text=_("0–100."))
    published_at = models.DateTimeField(
        _("publish time"),
        null=True,
        blank=True,
        help_text=_("When readers may see it. A time in the future schedules it."),
    )
    clicks = models.PositiveIntegerField(_("clicks"), default=0)
    # The same story from other sources shares a key (set by ingestion or by hand).
    cluster_key = models.CharField(_("story key"), max_length=64, blank=True)

    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviewed_items",
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("submitted by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="submitted_items",
    )
    # Names of the fields an editor has changed; ingestion leaves those alone.
    edited_fields = models.JSONField(_("fields edited by hand"), default=list, blank=True)
    fetched_at = models.DateTimeField(_("last seen in its feed"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    # Bumped by every write that goes through the workflow or an editor's form;
    # a save that read an older version is refused instead of overwriting.
    version = models.PositiveIntegerField(_("version"), default=1)

    objects = ItemQuerySet.as_manager()

    class Meta:
        verbose_name = _("item")
        verbose_name_plural = _("items")
        permissions = [
            ("publish_item", _("Can publish items")),
            ("feature_item", _("Can feature items")),
            ("unfeature_item", _("Can unfeature items")),
            ("reject_item", _("Can reject items")),
            ("restore_item", _("Can restore rejected items")),
            ("change_live_item", _("Can change the text of a live item")),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "guid"],
                condition=~Q(guid=""),
                name="item_unique_guid_per_source",
            ),
            models.CheckConstraint(condition=Q(heat__gte=0, heat__lte=100), name="item_heat_0_100"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "published", "featured", "rejected"]),
                name="item_status_valid",
            ),
            models.CheckConstraint(condition=Q(kind__in=Kind.values), name="item_kind_valid"),
            models.CheckConstraint(
                condition=Q(category="") | Q(category__in=Category.values),
                name="item_category_valid",
            ),
            # A public item must say from when it is public.
            models.CheckConstraint(
                condition=~PUBLIC_Q | Q(published_at__isnull=False),
                name="item_public_has_publish_time",
            ),
        ]
        indexes = [
            # The stream: visible items, newest first (and "before this day").
            models.Index(
                models.F("published_at").desc(),
                models.F("id").desc(),
                condition=PUBLIC_Q,
                name="item_public_stream_idx",
            ),
            # The kind and category tabs over the same stream.
            models.Index(
                "kind",
                models.F("published_at").desc(),
                condition=PUBLIC_Q,
                name="item_public_kind_idx",
            ),
            models.Index(
                "category",
                models.F("published_at").desc(),
                condition=PUBLIC_Q,
                name="item_public_category_idx",
            ),
            # The API's `ordering=hot`: visible items, hottest first, paged by keyset.
            models.Index(
                models.F("heat").desc(),
                models.F("published_at").desc(),
                models.F("id").desc(),
                condition=PUBLIC_Q,
                name="item_public_hot_idx",
            ),
            # A source's stream and its counts.
            models.Index(
                "source", models.F("published_at").desc(), name="item_source_published_idx"
            ),
            # The review queue: items of one status, newest first.
            models.Index("status", models.F("created_at").desc(), name="item_status_created_idx"),
            # "Other items that look like the same story".
            models.Index(
                fields=["cluster_key"], condition=~Q(cluster_key=""), name="item_cluster_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("feed:item-detail", kwargs={"pk": self.pk, "slug": self.slug})

    def delete(self, *args, **kwargs):
        """Delete the item, leaving a tombstone so no feed brings it back."""
        with transaction.atomic(using=kwargs.get("using")):
            Tombstone.objects.record([(self.url, self.title, self.source_id)])
            return super().delete(*args, **kwargs)

    @property
    def is_featured(self) -> bool:
        return self.status == self.Status.FEATURED

    @property
    def slug(self) -> str:
        """A readable URL segment; the id alone identifies the item."""
        return slugify(self.title, allow_unicode=True)[:80] or "item"


# Ingestion's own records: keyword rules, tombstones, fetch history, hosts.


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
        return f"{self.source} @ {self.started_at:%Y-%m-%d %H:%M}"


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


# Proposed revisions live in their own module; imported here so Django sees the model.
from feed.revisions import ItemRevision  # noqa: E402, F401
