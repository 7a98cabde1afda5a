"""Editors' changes to an item's content, safe against two people saving at once.

`item_edit` is the one way to change an item's editable fields: the admin's
change form, its list-editable columns and the API's PATCH call it. It never
touches the status (that is `editorial.workflow`'s), refuses a save based on
an old version, and records which fields a person changed so that ingestion
leaves them alone.
"""

import contextlib
import datetime
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from editorial.errors import EditConflict, FieldNotEditable, NotPermitted
from editorial.models import ItemLogEntry, LogAction
from editorial.revisions import user_may_change_live
from editorial.workflow import Actor
from feed.freshness import generation_bump
from feed.html import clean_html
from feed.identity import item_url_check, item_url_clean
from feed.models import Item
from feed.revisions import GUARDED_FIELDS, ItemRevision, item_is_live, revision_record

#: What an editor may change. Status, publish time and review fields belong to
#: the workflow; fetch metadata (guid, fetch times, clicks) to ingestion.
EDITABLE_FIELDS = (
    "source",
    "title",
    "url",
    "authors",
    "summary",
    "recommendation",
    "body",
    "kind",
    "category",
    "tags",
    "heat",
    "cluster_key",
)


EMPTY = ("", None, [])


def tag_names_clean(names: Iterable[str]) -> list[str]:
    """Tag names as typed: trimmed, without blanks, each once, in the order given."""
    seen: dict[str, None] = {}
    for name in names:
        name = name.strip()
        if name and name.casefold() not in {n.casefold() for n in seen}:
            seen[name] = None
    return list(seen)


def item_create(*, by: Actor, fields: dict[str, Any], now: datetime.datetime | None = None) -> Item:
    """Add an item by hand: a draft, its fields marked as edited, its creation logged.

    The URL is stored canonical; one another item has raises `DuplicateURL`.
    """
    _require(by, "feed.add_item")
    _check_editable(fields)
    fields = _url_canonical(fields)
    if "url" in fields:
        item_url_check(fields["url"])
    now = now or timezone.now()
    values = {name: value for name, value in fields.items() if name != "tags"}
    if "body" in values:
        values["body"] = clean_html(values["body"])
    values.setdefault("kind", values["source"].kind)
    item = Item(**values, status=Item.Status.DRAFT, submitted_by=by)
    item.edited_fields = sorted(name for name, value in fields.items() if value not in EMPTY)
    with _url_kept_unique(values.get("url"), exclude_pk=None), transaction.atomic():
        item.full_clean(exclude=["tags"])
        item.save()
        if fields.get("tags"):
            item.tags.set(tag_names_clean(fields["tags"]))
        _log(item, by=by, action=LogAction.CREATE, at=now, changed=item.edited_fields)
    return item


def item_edit(
    *,
    item: Item,
    by: Actor,
    changes: dict[str, Any],
    expected_version: int,
    now: datetime.datetime | None = None,
    origin: str = ItemRevision.Origin.EDITOR,
) -> Item:
    """Apply an editor's changes, refusing them if anyone saved the item after `expected_version`.

    `changes` maps editable field names to new values (`tags` to a list of
    names, `source` to a Source). Only values that differ from the stored ones
    count; with none, nothing is written. On a live item, changes to the text
    readers see (`GUARDED_FIELDS`) by someone who is not a chief editor are
    not written but proposed: the returned item's `proposal` is that pending
    `ItemRevision` (else None). Raises `EditConflict` naming who changed the
    item last and when; `feed.identity.DuplicateURL` for a URL another item
    has (after canonicalising it); `django.core.exceptions.ValidationError`
    for values the model refuses.
    """
    _require(by, "feed.change_item")
    _check_editable(changes)
    changes = _url_canonical(changes)
    now = now or timezone.now()
    with _url_kept_unique(changes.get("url"), exclude_pk=item.pk), transaction.atomic():
        # The lock keeps the row as read until the UPDATE below (PostgreSQL);
        # SQLite takes its write lock at BEGIN IMMEDIATE, which does the same.
        current = Item.objects.select_for_update().get(pk=item.pk)
        if current.version != expected_version:
            raise edit_conflict(current)
        if "url" in changes:
            item_url_check(changes["url"], exclude_pk=item.pk)
        changed = _changed_values(current, changes)
        proposed = {}
        if item_is_live(current) and not user_may_change_live(by):
            proposed = {name: changed.pop(name) for name in list(changed) if name in GUARDED_FIELDS}
        if changed:
            _write(current, changed, by=by, expected_version=expected_version, now=now)
        proposal = None
        if proposed:
            proposal = revision_record(
                item=current,
                origin=origin,
                status=ItemRevision.Status.PENDING,
                changes=proposed,
                proposed_by=by,
                proposed_by_name=by.get_username(),
                now=now,
            )
    item.refresh_from_db()
    item.proposal = proposal
    return item


def _url_canonical(values: dict[str, Any]) -> dict[str, Any]:
    """`values` with the URL in the spelling items are unique by (feed.identity)."""
    if "url" not in values:
        return values
    return {**values, "url": item_url_clean(values["url"])}


@contextlib.contextmanager
def _url_kept_unique(url: str | None, *, exclude_pk: int | None):
    """Turn the unique index's refusal (a rival saved the URL after our check) into DuplicateURL."""
    try:
        yield
    except IntegrityError:
        if url:
            item_url_check(url, exclude_pk=exclude_pk)
        raise


def edit_conflict(current: Item) -> EditConflict:
    """The error for a save based on an old version, naming who changed the item and when."""
    last = current.log_entries.order_by("-at", "-id").first()
    if last is not None and last.version == current.version:
        who = last.by_name or _("someone")
        when = last.at
        fields = list(last.changed_fields) if last.action == LogAction.EDIT else []
        what = (
            _("%(action)s it") % {"action": str(last.get_action_display()).lower()}
            if last.action != LogAction.EDIT
            else _("changed %(fields)s") % {"fields": _field_labels(fields)}
        )
    else:
        # A write that left no history entry: ingestion refreshing the item.
        who, when, fields = _("the feed fetcher"), current.updated_at, []
        what = _("updated it")
    local = formats.date_format(timezone.localtime(when), "DATETIME_FORMAT")
    message = _("%(who)s %(what)s at %(when)s, after you opened this item.") % {
        "who": who,
        "what": what,
        "when": local,
    }
    return EditConflict(message, current_version=current.version, changed_fields=fields)


def _write(
    current: Item,
    changed: dict[str, Any],
    *,
    by: Actor,
    expected_version: int,
    now: datetime.datetime,
) -> None:
    columns = {name: value for name, value in changed.items() if name != "tags"}
    if "body" in columns:
        columns["body"] = clean_html(columns["body"])
    if columns:
        for name, value in columns.items():
            setattr(current, name, value)
        # Field checks, the unique URL and the model's constraints, for the
        # changed fields only: callers other than the admin form rely on this.
        others = [f.name for f in Item._meta.fields if f.name not in columns]
        current.full_clean(exclude=[*others, "tags"])
    edited = sorted(set(current.edited_fields) | set(changed))
    updated = Item.objects.filter(pk=current.pk, version=expected_version).update(
        **columns, edited_fields=edited, version=F("version") + 1, updated_at=now
    )
    if not updated:
        raise edit_conflict(Item.objects.get(pk=current.pk))
    if "tags" in changed:
        current.tags.set(changed["tags"])
    current.version = expected_version + 1
    generation_bump()  # on commit: cards, pages and feeds show the edit
    _log(current, by=by, action=LogAction.EDIT, at=now, changed=sorted(changed))


def _changed_values(current: Item, changes: dict[str, Any]) -> dict[str, Any]:
    changed: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "tags":
            names = tag_names_clean(value)
            if sorted(names) != sorted(tag.name for tag in current.tags.all()):
                changed[name] = names
        elif name == "source":
            if value.pk != current.source_id:
                changed[name] = value
        elif getattr(current, name) != value:
            changed[name] = value
    return changed


def _log(item: Item, *, by: Actor, action: LogAction, at: datetime.datetime, changed) -> None:
    ItemLogEntry.objects.create(
        item=item,
        action=action,
        from_status=item.status,
        to_status=item.status,
        version=item.version,
        by=by,
        by_name=by.get_username(),
        at=at,
        changed_fields=list(changed),
    )


def _require(user: Actor, permission: str) -> None:
    if not (user is not None and user.is_authenticated and user.is_active):
        raise NotPermitted(_("Log in to change items."))
    if not user.has_perm(permission):
        raise NotPermitted(_("You are not allowed to change items."))


def _check_editable(fields: dict[str, Any]) -> None:
    refused = sorted(set(fields) - set(EDITABLE_FIELDS))
    if refused:
        raise FieldNotEditable(
            _(
                "These fields cannot be edited: %(fields)s. Status and publish time change "
                "only through the workflow."
            )
            % {"fields": ", ".join(refused)}
        )


def _field_labels(names: Iterable[str]) -> str:
    return ", ".join(str(Item._meta.get_field(name).verbose_name) for name in names)
