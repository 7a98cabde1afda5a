"""Every change of an item's status: the table of allowed moves and one function per move.

The admin, the API and tasks call these functions; nothing else writes
`Item.status`. Each function checks the user's permission and the item's
current state, moves the item with a conditional UPDATE (so two people
acting at once cannot both win), writes one history entry in the same
transaction, and announces the move through `editorial.signals` after commit.
"""

import datetime
import functools
import logging
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from editorial import signals
from editorial.errors import NotPermitted, ReasonRequired, TransitionNotAllowed, WhyRequired
from editorial.models import ItemLogEntry, ItemRecommendation, LogAction
from feed.freshness import generation_bump
from feed.models import PUBLIC_STATUSES, Item

logger = logging.getLogger(__name__)

S = Item.Status
#: Whoever asks for a change: a user, an anonymous visitor, or nobody (a task).
Actor = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True)
class Move:
    """One allowed transition: where it may start, where it ends, who may make it."""

    action: LogAction
    sources: tuple[S, ...]
    target: S
    permission: str
    #: Shown when the user lacks `permission`.
    refused: Promise
    #: Shown when the item is in none of `sources`; formatted with title and status.
    not_from: Promise


# The whole graph in one place, keyed by move rather than by target status:
# "publish" and "unfeature" both end in published but need different
# permissions, so a target-keyed table could not tell them apart.
TRANSITIONS: dict[LogAction, Move] = {
    LogAction.PUBLISH: Move(
        LogAction.PUBLISH,
        sources=(S.DRAFT,),
        target=S.PUBLISHED,
        permission="feed.publish_item",
        refused=_("You are not allowed to publish items."),
        not_from=_("“%(title)s” is %(status)s: only drafts can be published."),
    ),
    LogAction.FEATURE: Move(
        LogAction.FEATURE,
        sources=(S.DRAFT, S.PUBLISHED),
        target=S.FEATURED,
        permission="feed.feature_item",
        refused=_("You are not allowed to feature items."),
        not_from=_("“%(title)s” is %(status)s: only drafts and published items can be featured."),
    ),
    LogAction.UNFEATURE: Move(
        LogAction.UNFEATURE,
        sources=(S.FEATURED,),
        target=S.PUBLISHED,
        permission="feed.unfeature_item",
        refused=_("You are not allowed to unfeature items."),
        not_from=_("“%(title)s” is %(status)s: only featured items can be unfeatured."),
    ),
    LogAction.REJECT: Move(
        LogAction.REJECT,
        sources=(S.DRAFT, S.PUBLISHED, S.FEATURED),
        target=S.REJECTED,
        permission="feed.reject_item",
        refused=_("You are not allowed to reject items."),
        not_from=_("“%(title)s” is %(status)s already."),
    ),
    LogAction.RESTORE: Move(
        LogAction.RESTORE,
        sources=(S.REJECTED,),
        target=S.DRAFT,
        permission="feed.restore_item",
        refused=_("You are not allowed to restore items."),
        not_from=_("“%(title)s” is %(status)s: only rejected items can be restored."),
    ),
}


def status_label(status: str) -> str:
    """A status as a word inside a sentence ("draft", "草稿")."""
    return str(S(status).label).lower()


def moves_from(status: str) -> list[LogAction]:
    """The moves that may start from `status`, in table order."""
    return [action for action, move in TRANSITIONS.items() if status in move.sources]


def user_may(user: Actor, action: LogAction) -> bool:
    """Whether `user` holds the permission for `action` (superusers hold all)."""
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and user.has_perm(TRANSITIONS[action].permission)
    )


def item_publish(
    *,
    item: Item,
    by: Actor,
    at: datetime.datetime | None = None,
    now: datetime.datetime | None = None,
) -> Item:
    """Publish a draft, now or from `at` (a time in the future schedules it)."""
    return _move(LogAction.PUBLISH, item=item, by=by, at=at, now=now)


def item_feature(
    *,
    item: Item,
    by: Actor,
    at: datetime.datetime | None = None,
    now: datetime.datetime | None = None,
) -> Item:
    """Feature a draft (published from `at` or now) or a published item (its time kept).

    A featured item is one the desk recommends, so it must say why
    (`recommendation`, "why recommended"); without it the move is refused.
    """
    return _move(LogAction.FEATURE, item=item, by=by, at=at, now=now)


def item_unfeature(*, item: Item, by: Actor, now: datetime.datetime | None = None) -> Item:
    """Take the featured badge off; the item stays published."""
    return _move(LogAction.UNFEATURE, item=item, by=by, now=now)


def item_reject(
    *, item: Item, by: Actor, reason: str, now: datetime.datetime | None = None
) -> Item:
    """Reject an item, saying why; a public one leaves the site at once."""
    if not (reason or "").strip():
        raise ReasonRequired(str(_("Say why the item is rejected.")))
    return _move(LogAction.REJECT, item=item, by=by, note=reason.strip(), now=now)


def item_restore(*, item: Item, by: Actor, now: datetime.datetime | None = None) -> Item:
    """Bring a rejected item back to the drafts."""
    return _move(LogAction.RESTORE, item=item, by=by, now=now)


def item_move(
    action: LogAction | str,
    *,
    item: Item,
    by: Actor,
    at: datetime.datetime | None = None,
    reason: str = "",
    now: datetime.datetime | None = None,
) -> Item:
    """Make the move named `action`: what the admin's and the API's one dispatcher each call.

    `at` is for publish and feature, `reason` for reject; each move is still
    its own function above, with its own rule (a reason, a "why"), and this
    only picks it.
    """
    action = LogAction(action)
    if action not in TRANSITIONS:
        raise ValueError(f"{action!r} is not a move of the workflow")
    if action == LogAction.REJECT:
        return item_reject(item=item, by=by, reason=reason, now=now)
    if action in (LogAction.PUBLISH, LogAction.FEATURE):
        return _MOVES_AT[action](item=item, by=by, at=at, now=now)
    if at is not None:
        raise TypeError(f"{action} takes no publish time")
    return _MOVES_NOW[action](item=item, by=by, now=now)


_MOVES_AT = {LogAction.PUBLISH: item_publish, LogAction.FEATURE: item_feature}
_MOVES_NOW = {LogAction.UNFEATURE: item_unfeature, LogAction.RESTORE: item_restore}


def _move(
    action: LogAction,
    *,
    item: Item,
    by: Actor,
    at: datetime.datetime | None = None,
    note: str = "",
    now: datetime.datetime | None = None,
) -> Item:
    move = TRANSITIONS[action]
    if not user_may(by, action):
        raise NotPermitted(str(move.refused))
    if item.status not in move.sources:
        raise TransitionNotAllowed(_not_from_message(move, item))
    if action == LogAction.FEATURE and not (item.recommendation or "").strip():
        raise WhyRequired(
            str(
                _(
                    "“%(title)s” cannot be featured without a “why recommended”: "
                    "write why readers should read it first."
                )
            )
            % {"title": item.title}
        )
    if at is not None and timezone.is_naive(at):
        raise ValueError("`at` must be an aware datetime")
    now = now or timezone.now()
    from_status = item.status

    updates = {
        "status": move.target,
        "reviewed_by": by,
        "reviewed_at": now,
        "version": F("version") + 1,
        "updated_at": now,
    }
    entering_public = move.target in PUBLIC_STATUSES and from_status not in PUBLIC_STATUSES
    if entering_public:
        updates["published_at"] = at or now
    elif move.target not in PUBLIC_STATUSES:
        # Off the site: a later publish starts afresh with its own time.
        updates["published_at"] = None

    with transaction.atomic():
        # Conditional on the status the caller saw: if someone moved the item
        # meanwhile, no row matches and this move is refused, not applied twice.
        moved = Item.objects.filter(pk=item.pk, status=from_status).update(**updates)
        item.refresh_from_db()
        if not moved:
            raise TransitionNotAllowed(
                str(_("“%(title)s” was changed by someone else meanwhile: it is now %(status)s."))
                % {"title": item.title, "status": status_label(item.status)}
            )
        if from_status == S.DRAFT:
            # Decided: the editor's "ready for a chief" has done its job.
            ItemRecommendation.objects.filter(item=item).delete()
        ItemLogEntry.objects.create(
            item=item,
            action=action,
            from_status=from_status,
            to_status=move.target,
            version=item.version,
            by=by,
            by_name=by.get_username(),
            at=now,
            note=note,
        )
        generation_bump()  # readers' pages change with every move
        transaction.on_commit(
            functools.partial(_announce, item=item, action=action, from_status=from_status, by=by),
            robust=True,
        )
    return item


def _not_from_message(move: Move, item: Item) -> str:
    return str(move.not_from) % {"title": item.title, "status": status_label(item.status)}


def _announce(*, item: Item, action: LogAction, from_status: str, by: Actor) -> None:
    """Send the signals that describe a committed move."""
    to_status = item.status
    was_public = from_status in PUBLIC_STATUSES
    is_public = to_status in PUBLIC_STATUSES
    chosen = [signals.item_transitioned]
    if is_public and not was_public:
        chosen.append(signals.item_published)
    if to_status == S.FEATURED:
        chosen.append(signals.item_featured)
    if from_status == S.FEATURED and to_status == S.PUBLISHED:
        chosen.append(signals.item_unfeatured)
    if was_public and not is_public:
        chosen.append(signals.item_unpublished)
    for signal in chosen:
        results = signal.send_robust(
            sender=Item,
            item=item,
            action=action,
            from_status=from_status,
            to_status=to_status,
            by=by,
        )
        for receiver, result in results:
            if isinstance(result, Exception):
                logger.error(
                    "receiver %r failed after %s of item %s",
                    receiver,
                    action,
                    item.pk,
                    exc_info=result,
                )
