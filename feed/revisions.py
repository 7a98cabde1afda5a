"""Proposed revisions: how a change reaches an item that readers can already see.

One mechanism for every writer (a feed refresh, `import_items`, the API and
editors in the admin). The rule, `refresh_decision`, is pure:

- an empty incoming value never blanks a field;
- a draft or rejected item takes the change at once (nobody reads it yet);
- a live item (published or featured) takes only values for fields that are
  empty now; every other change to its text waits as a pending
  `ItemRevision` until a chief editor accepts it (`editorial.revisions`).

Changes applied directly by a feed or an import are recorded as revisions too
(status "applied"), so every change to an item says who or what made it.
The model (`feed/models/revisions.py`) lives in `feed` because ingestion
writes it and `feed` never imports `editorial`; accepting and declining are
`editorial`'s, with permissions and history.
"""

import dataclasses
import datetime
from typing import Any

from django.db import models

from feed.freshness import generation_bump_if_public
from feed.models import Item, ItemRevision

#: Fields whose text readers see: on a live item, changing them needs a chief.
GUARDED_FIELDS = (
    "title",
    "url",
    "authors",
    "summary",
    "recommendation",
    "body",
    "original_published_at",
)
EMPTY = ("", None, [])


@dataclasses.dataclass(frozen=True)
class RefreshDecision:
    """What to write now and what to propose for review."""

    apply: dict[str, Any]
    propose: dict[str, Any]


def item_is_live(item) -> bool:
    """Whether readers can see (or will see, when scheduled) the item."""
    return item.status in ("published", "featured")


def refresh_decision(
    *, item, incoming: dict[str, Any], owned: frozenset = frozenset()
) -> RefreshDecision:
    """Split `incoming` values into those applied now and those proposed to a chief.

    `owned` names fields the writer may not change at all (those an editor
    edited by hand, for a feed); they are left out of both.
    """
    apply: dict[str, Any] = {}
    propose: dict[str, Any] = {}
    live = item_is_live(item)
    for field, value in incoming.items():
        if field in owned or value in EMPTY or getattr(item, field) == value:
            continue
        if live and field in GUARDED_FIELDS and getattr(item, field) not in EMPTY:
            propose[field] = value
        else:
            apply[field] = value
    return RefreshDecision(apply=apply, propose=propose)


def json_value(value: Any) -> Any:
    """A field value as stored in a revision's JSON (times as ISO 8601)."""
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return value


def field_value(field: str, stored: Any) -> Any:
    """A revision's stored JSON value back as the item field's Python value."""
    if field == "original_published_at" and isinstance(stored, str):
        return datetime.datetime.fromisoformat(stored)
    return stored


def revision_record(
    *,
    item,
    origin: str,
    status: str,
    changes: dict[str, Any],
    proposed_by=None,
    proposed_by_name: str,
    now: datetime.datetime,
) -> ItemRevision:
    """Record a change made or proposed; a pending one replaces its proposer's older one."""
    values = {field: json_value(value) for field, value in changes.items()}
    previous = {field: json_value(getattr(item, field)) for field in changes}
    if status == ItemRevision.Status.PENDING:
        ItemRevision.objects.pending().filter(
            item_id=item.pk, origin=origin, proposed_by_name=proposed_by_name
        ).update(status=ItemRevision.Status.SUPERSEDED, decided_at=now)
    return ItemRevision.objects.create(
        item_id=item.pk,
        origin=origin,
        status=status,
        changes=values,
        previous=previous,
        base_version=item.version,
        proposed_by=proposed_by,
        proposed_by_name=proposed_by_name[:200],
        proposed_at=now,
    )


def item_refresh_from_source(
    *,
    item,
    values: dict[str, Any],
    origin: str,
    by_name: str,
    now: datetime.datetime,
) -> bool:
    """Refresh a known item from its feed or an import: apply or propose; True if anything changed.

    `item` needs its status, version, `edited_fields` and the fields in
    `values` loaded. The write is conditional on the version read, so an
    editor's save in between wins and the decision is made again.
    """
    fields = ("id", "status", "version", "edited_fields", *values)
    for _attempt in range(3):
        decision = refresh_decision(
            item=item, incoming=values, owned=frozenset(item.edited_fields or [])
        )
        if not decision.apply and not decision.propose:
            return False
        if decision.propose and _same_as_pending(item, origin, by_name, decision.propose):
            decision = RefreshDecision(apply=decision.apply, propose={})
            if not decision.apply:
                return False
        written = 1
        if decision.apply:
            written = Item.objects.filter(pk=item.pk, version=item.version).update(
                **decision.apply,
                fetched_at=now,
                updated_at=now,
                version=models.F("version") + 1,
            )
        if written:
            if decision.apply:
                generation_bump_if_public(item.status)
                revision_record(
                    item=item,
                    origin=origin,
                    status=ItemRevision.Status.APPLIED,
                    changes=decision.apply,
                    proposed_by_name=by_name,
                    now=now,
                )
            if decision.propose:
                if decision.apply:
                    item.version += 1
                revision_record(
                    item=item,
                    origin=origin,
                    status=ItemRevision.Status.PENDING,
                    changes=decision.propose,
                    proposed_by_name=by_name,
                    now=now,
                )
            return True
        item = Item.objects.only(*fields).get(pk=item.pk)
    return False


def _same_as_pending(item, origin: str, by_name: str, propose: dict[str, Any]) -> bool:
    """Whether the proposer's pending revision already says exactly this (a feed fetched again)."""
    wanted = {field: json_value(value) for field, value in propose.items()}
    return (
        ItemRevision.objects.pending()
        .filter(item_id=item.pk, origin=origin, proposed_by_name=by_name, changes=wanted)
        .exists()
    )
