"""Items, their tags and `ItemQuerySet`: the reader's data and its named states."""

import datetime
import functools
import zoneinfo
from dataclasses import dataclass
from urllib.parse import quote

from django.conf import settings
from django.db import connection, connections, models, transaction
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone, translation
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from taggit.managers import TaggableManager
from taggit.models import Tag, TaggedItemBase

from aitop.days import day_start
from feed.models.ingest import Tombstone
from feed.models.loading import LeanLoading
from feed.models.sources import Category, Kind, Source
from feed.search import search_words, word_condition
from feed.sql import column, in_values, prepared_cursor, table


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


def visible_sql(alias: str = "") -> str:
    """`ItemQuerySet.visible()`'s rule in plain SQL, on the items table or its alias `alias`.

    For statements written once from the models' names (feed/sql.py): its
    placeholders are doubled (`%%s`) for the one `%` formatting that fills in
    a statement's lists, and its parameters are `visible_params(now)`.
    """
    statuses = ", ".join(["%%s"] * len(PUBLIC_STATUSES))
    return (
        f"{column(Item, 'status', alias)} IN ({statuses})"
        f" AND {column(Item, 'published_at', alias)} <= %%s"
    )


def visible_params(now: datetime.datetime | None = None) -> list:
    """The parameters of `visible_sql()`: the public statuses, then the moment."""
    return [*PUBLIC_STATUSES, connection.ops.adapt_datetimefield_value(now or timezone.now())]


@dataclass(frozen=True, slots=True)
class CardTag:
    """A tag as cards, feeds and the API show it: its id, name and slug, no model instance."""

    pk: int
    name: str
    slug: str


def _tags_sorted(tags) -> list[CardTag]:
    return sorted(tags, key=lambda tag: (tag.name.casefold(), tag.pk))


@functools.cache
def _card_tags_sql(vendor: str) -> str:
    """SELECT item, tag id, name, slug for the items `%(ids)s` picks, from the models' names."""
    item_id, tag_id = column(TaggedItem, "content_object"), column(TaggedItem, "tag")
    name, slug, pk = (column(Tag, field) for field in ("name", "slug", "id"))
    return (
        f"SELECT {item_id}, {tag_id}, {name}, {slug}"  # noqa: S608 (model names)
        f" FROM {table(TaggedItem)} INNER JOIN {table(Tag)}"
        f" ON {tag_id} = {pk} WHERE {item_id} %(ids)s"
    )


def card_tags_attach(items: list) -> None:
    """Give each item `card_tags`, its tags by name, read for all of them in one query.

    Plain SQL written once from the models' names: building the same SELECT
    through the ORM cost five times what the database took to answer it
    (about a tenth of a cold page; docs/benchmarks.md).
    """
    if not items:
        return
    by_item: dict[int, list[CardTag]] = {item.pk: [] for item in items}
    ids, params = in_values(by_item)
    sql = _card_tags_sql(connection.vendor) % {"ids": ids}
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    for item_id, tag_id, name, slug in rows:
        by_item[item_id].append(CardTag(pk=tag_id, name=name, slug=slug))
    for item in items:
        item.card_tags = _tags_sorted(by_item[item.pk])


@functools.cache
def _tag_ids_sql(vendor: str) -> str:
    slug = column(Tag, "slug")
    return (
        f"SELECT {slug}, {column(Tag, 'id')} FROM {table(Tag)}"  # noqa: S608 (model names)
        f" WHERE {slug} IN (%(slugs)s)"
    )


def _tag_ids(db, slugs) -> dict[str, int]:
    """Slug → id of the tags `slugs` (plain SQL: the ORM's SELECT cost more than its answer)."""
    sql = _tag_ids_sql(db.vendor) % {"slugs": ", ".join(["%s"] * len(slugs))}
    with prepared_cursor(db) as cursor:
        cursor.execute(sql, list(slugs))
        return dict(cursor.fetchall())


# What reverse() leaves unquoted in a path; an item's slug is quoted the same way.
_PATH_SAFE = RFC3986_SUBDELIMS + "/~:@"
# Stand-ins for an item's id and slug in the shape of its page's address.
_PK, _SLUG = 999_999_999, "slug-of-item"


@functools.lru_cache(maxsize=64)
def _detail_shape(root_urlconf, urlconf, script_prefix, language) -> tuple[str, str]:
    """The text before and after "<id>/<slug>" in an item page's path, for these URL settings."""
    before, after = reverse("feed:item-detail", kwargs={"pk": _PK, "slug": _SLUG}).split(
        f"{_PK}/{_SLUG}"
    )
    return before, after


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
        start = day_start(day, tz=tz)
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
        ids = _tag_ids(connections[self.db], slugs)
        if len(ids) < len(set(slugs)):
            return self.none()
        queryset = self
        for slug in slugs:
            queryset = queryset.filter(tagged_items__tag_id=ids[slug])
        return queryset

    def newest_first(self) -> "ItemQuerySet":
        return self.order_by("-published_at", "-id")

    # Set by `for_cards()`: once fetched, the items get their tags (`_fetch_all`).
    _card_tags = False
    _card_tags_done = False

    def for_cards(self) -> "ItemQuerySet":
        """Everything an item card (or the API's item) shows, in two queries whatever the page.

        The tags are read for all the items at once, as plain (id, name, slug)
        values, and kept sorted on each item for `Item.tags_sorted()`. Not a
        `prefetch_related`: taggit's manager built a fresh queryset per item,
        which cost more than the rest of an API page together, and a tag row
        and a tag model per tag were half of the rest (2-3 ms of a page of 50).
        """
        clone = self.select_related("source")
        clone._card_tags = True
        return clone

    def _clone(self):
        clone = super()._clone()
        clone._card_tags = self._card_tags
        return clone

    def _fetch_all(self):
        super()._fetch_all()
        if self._card_tags and not self._card_tags_done:
            self._card_tags_done = True
            card_tags_attach([row for row in self._result_cache if isinstance(row, Item)])

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
        tag_ids = [tag.pk for tag in item.tags_sorted()]
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


@functools.lru_cache(maxsize=4096)
def title_slug(title: str) -> str:
    """An item's slug: its title slugified, at most 80 characters, "item" if nothing is left.

    Remembered: a page links to fifty items and their stories' others, and
    slugify (Unicode normalisation, two regular expressions) is 8 µs a title.
    """
    return slugify(title, allow_unicode=True)[:80] or "item"


class Item(LeanLoading, models.Model):
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
            # What one fetch created or saw (the drafts that enrichment picks up).
            models.Index(fields=["source", "fetched_at"], name="item_source_fetched_idx"),
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
        """What `reverse("feed:item-detail", …)` gives, from a shape reversed once per language.

        A feed of 50 items, a sitemap section or a card's story links ask for
        many of these at once, and reverse() cost about 20 µs each.
        """
        before, after = _detail_shape(
            settings.ROOT_URLCONF, get_urlconf(), get_script_prefix(), translation.get_language()
        )
        return f"{before}{self.pk}/{quote(self.slug, safe=_PATH_SAFE)}{after}"

    def tags_sorted(self) -> list["CardTag"]:
        """The item's tags by name: those `for_cards()` fetched, else in one query."""
        tags = getattr(self, "card_tags", None)
        if tags is None:
            tags = _tags_sorted(
                CardTag(pk=pk, name=name, slug=slug)
                for pk, name, slug in self.tags.values_list("pk", "name", "slug")
            )
        return tags

    # The same rule as `ItemQuerySet.visible()`, for an item already in memory.
    def is_visible(self, now: datetime.datetime | None = None) -> bool:
        """Whether a reader may see the item now: published or featured, its time come."""
        now = now or timezone.now()
        return (
            self.status in PUBLIC_STATUSES
            and self.published_at is not None
            and self.published_at <= now
        )

    def is_scheduled(self, now: datetime.datetime | None = None) -> bool:
        """Whether the item is published (or featured) for a time still to come."""
        now = now or timezone.now()
        return (
            self.status in PUBLIC_STATUSES
            and self.published_at is not None
            and self.published_at > now
        )

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
        return title_slug(self.title)
