"""Enriching items: which fields to write, asking the backend, checking and storing its answer.

`item_enrich` is the one entry point that the task, the command and the
admin actions call. It writes only drafts, only fields nobody has changed and
that are not done yet (unless an editor asks to regenerate), never the status;
any failure is recorded on the item's enrichment and never raised.
"""

import dataclasses
import datetime
import logging
from collections.abc import Callable, Iterable
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from enrichment.backends import (
    Answer,
    Backend,
    BackendError,
    BudgetExhausted,
    backend_from_settings,
)
from enrichment.budget import cost_estimate
from enrichment.models import Enrichment, Field, FieldDraft, Run
from enrichment.validate import AnswerRefused, Draft, answer_validate
from feed.ingest.tagging import items_tag
from feed.models import Item

logger = logging.getLogger(__name__)

ITEM_TEXT_FIELDS = (Field.SUMMARY, Field.RECOMMENDATION, Field.CATEGORY)
ANSWER_KEEP = 4000  # characters of a refused answer kept for the editor
# Item fields that both the feed and enrichment write. The feed refreshes a
# field whenever its text differs from the item's, except fields listed in
# `edited_fields`; an AI draft replaces the feed's text on purpose, so it is
# listed there too, or the next fetch of the same entry would put it back.
FEED_OWNED = frozenset({Field.SUMMARY})


@dataclasses.dataclass
class EnrichResult:
    """What enriching one item did."""

    item_id: int
    status: str  # "done", "skipped", "failed" or "waiting"
    fields: list[str] = dataclasses.field(default_factory=list)
    error: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: Decimal = Decimal(0)


@dataclasses.dataclass
class EnrichSummary:
    """What enriching many items did, for the command, the task and the admin."""

    done: int = 0
    skipped: int = 0
    failed: int = 0
    waiting: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: Decimal = Decimal(0)

    def add(self, result: EnrichResult) -> None:
        setattr(self, result.status, getattr(self, result.status) + 1)
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        self.cost += result.cost

    def as_dict(self) -> dict:
        return {**dataclasses.asdict(self), "cost": str(self.cost)}


def _draft_value(draft: Draft, field: str):
    return {
        Field.HEADLINE: draft.headline,
        Field.SUMMARY: draft.summary,
        Field.RECOMMENDATION: draft.why,
        Field.CATEGORY: draft.category,
        Field.TAGS: draft.tags,
    }[field]


def current_value(item: Item, enrichment: Enrichment, field: str):
    """What the field holds now: the editor's final text, or the AI's if untouched."""
    if field == Field.HEADLINE:
        return enrichment.headline
    if field == Field.TAGS:
        return sorted(tag.name for tag in item.tags.all())
    return getattr(item, field)


def field_changed_by_editor(
    item: Item, enrichment: Enrichment, field: str, draft: FieldDraft | None
) -> bool:
    """Whether a person changed the field: marked by the edit, or no longer the AI's text."""
    if field in (item.edited_fields or []):
        return True
    if draft is None or field == Field.TAGS:
        return False
    return current_value(item, enrichment, field) != draft.value


def fields_wanted(
    *,
    item: Item,
    enrichment: Enrichment,
    drafts: dict[str, FieldDraft],
    backend: str,
    regenerate: bool,
) -> list[str]:
    """The fields to write now: all on "regenerate", else those neither done nor edited."""
    if regenerate:
        return list(Field.values)
    wanted = []
    for field in Field.values:
        draft = drafts.get(field)
        if field_changed_by_editor(item, enrichment, field, draft):
            continue
        # Done: a draft was written, or this backend already found nothing to write.
        if draft is not None and (draft.value or draft.run.backend == backend):
            continue
        wanted.append(field)
    return wanted


def items_pending() -> QuerySet[Item]:
    """Drafts not enriched yet, waiting for budget, or failed fewer than AITOP_AI_MAX_ATTEMPTS."""
    return (
        Item.objects.drafts()
        .filter(
            Q(enrichment__isnull=True)
            | Q(enrichment__state__in=[Enrichment.State.PENDING, Enrichment.State.WAITING])
            | Q(
                enrichment__state=Enrichment.State.FAILED,
                enrichment__attempts__lt=settings.AITOP_AI_MAX_ATTEMPTS,
            )
        )
        .order_by("-created_at", "-id")
    )


def fetch_pending(fetches: list[tuple[int, datetime.datetime]]) -> list[int]:
    """Ids of the pending drafts these fetches stored or saw (pairs of source id and fetch time)."""
    if not fetches:
        return []
    wanted = set(fetches)
    return [
        pk
        for pk, source_id, fetched_at in fetch_pending_candidates(fetches)
        if (source_id, fetched_at) in wanted
    ]


def fetch_pending_candidates(fetches: list[tuple[int, datetime.datetime]]):
    """Pending drafts of these sources fetched between the first and last of these times.

    Rows of (id, source, fetch time), from which `fetch_pending` picks the
    pairs. An OR of the pairs is exact, but the ORM took longer to build the
    OR of a batch's 25 fetches than the database to run it, on the worker's
    thread that writes every fetch. A list of sources and a span of times
    reads the same ranges of item_source_fetched_idx (a source is fetched
    once a batch), and SQLite picks that index for it, where for two lists
    it picked the status index and would read every draft.
    """
    times = [fetched_at for _, fetched_at in fetches]
    return (
        items_pending()
        .filter(
            source_id__in={source_id for source_id, _ in fetches},
            fetched_at__range=(min(times), max(times)),
        )
        # Unordered: an order by creation time would lead SQLite to walk every draft.
        .order_by()
        .values_list("pk", "source_id", "fetched_at")
    )


def item_enrich(
    *,
    item: Item,
    backend: Backend | None = None,
    regenerate: bool = False,
    by=None,
    language: str | None = None,
    now: datetime.datetime | None = None,
) -> EnrichResult:
    """Write the AI draft of a draft item's fields; never raises, never changes the status."""
    now = now or timezone.now()
    language = language or settings.AITOP_CONTENT_LANGUAGE
    backend = backend or backend_from_settings()
    item = Item.objects.select_related("source").prefetch_related("tags").get(pk=item.pk)
    if item.status != Item.Status.DRAFT:
        return EnrichResult(item.pk, "skipped", error="only drafts are enriched")
    enrichment, _ = Enrichment.objects.get_or_create(item=item)
    drafts = {draft.field: draft for draft in item.field_drafts.select_related("run")}
    wanted = fields_wanted(
        item=item, enrichment=enrichment, drafts=drafts, backend=backend.name, regenerate=regenerate
    )
    if not wanted:
        if enrichment.state != Enrichment.State.DONE:
            _state(enrichment, Enrichment.State.DONE, enriched_at=now)
        return EnrichResult(item.pk, "skipped")
    try:
        answer = backend.answer(item=item, language=language, now=now)
    except BudgetExhausted:
        _state(enrichment, Enrichment.State.WAITING, error="")
        return EnrichResult(item.pk, "waiting", error="today's token budget is spent")
    except BackendError as error:
        return _failed(
            item, enrichment, backend=backend, language=language, now=now, by=by, error=str(error),
            tokens_in=error.tokens_in, tokens_out=error.tokens_out,
        )  # fmt: skip
    except Exception as error:
        # A bug must not stop the other items (or the fetch that queued them).
        logger.exception("enriching item %s failed", item.pk)
        return _failed(
            item, enrichment, backend=backend, language=language, now=now, by=by,
            error=f"internal error: {type(error).__name__}: {error}",
        )  # fmt: skip
    try:
        draft = answer.draft or answer_validate(answer.content)
    except AnswerRefused as error:
        return _failed(
            item, enrichment, backend=backend, language=language, now=now, by=by,
            error=f"answer refused: {error}", answer=answer,
        )  # fmt: skip
    return _apply(
        item, enrichment, draft=draft, answer=answer, wanted=wanted, regenerate=regenerate,
        language=language, now=now, by=by,
    )  # fmt: skip


def _state(enrichment: Enrichment, state: str, **fields) -> None:
    enrichment.state = state
    for name, value in fields.items():
        setattr(enrichment, name, value)
    enrichment.save()


def _run(item, *, answer: Answer | None, backend, language, now, by, outcome, error="", **usage):
    tokens_in, tokens_out = usage.get("tokens_in", 0), usage.get("tokens_out", 0)
    # A call that failed after the model answered (cut off, refused) was still paid for.
    values = {
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost": cost_estimate(tokens_in=tokens_in, tokens_out=tokens_out),
    }
    if answer is not None:
        values = {"tokens_in": answer.tokens_in, "tokens_out": answer.tokens_out}
        values["cost"] = answer.cost
    return Run.objects.create(
        item=item,
        backend=answer.backend if answer else backend.name,
        model=answer.model if answer else getattr(backend, "model", ""),
        prompt_version=answer.prompt_version if answer else "",
        language=language,
        started_at=now,
        outcome=outcome,
        error=error,
        answer=(answer.content if answer else "")[:ANSWER_KEEP],
        requested_by=by,
        **values,
    )


def _failed(item, enrichment, *, backend, language, now, by, error, answer=None, **usage):
    run = _run(
        item, answer=answer, backend=backend, language=language, now=now, by=by,
        outcome=Run.Outcome.INVALID if answer else Run.Outcome.FAILED, error=error, **usage,
    )  # fmt: skip
    _state(enrichment, Enrichment.State.FAILED, error=error, attempts=enrichment.attempts + 1)
    return EnrichResult(
        item.pk, "failed", error=error, tokens_in=run.tokens_in, tokens_out=run.tokens_out,
        cost=run.cost,
    )  # fmt: skip


def _apply(item, enrichment, *, draft, answer, wanted, regenerate, language, now, by):
    """Store the validated draft: drafts, provenance, and the item's untouched fields."""
    with transaction.atomic():
        current = (
            Item.objects.select_for_update().prefetch_related("tags").get(pk=item.pk)
        )  # fmt: skip
        enrichment = Enrichment.objects.select_for_update().get(pk=enrichment.pk)
        if current.status != Item.Status.DRAFT:
            _state(enrichment, Enrichment.State.DONE, error="")
            return EnrichResult(item.pk, "skipped", error="the item left the drafts meanwhile")
        drafts = {d.field: d for d in current.field_drafts.select_related("run")}
        if not regenerate:
            # An editor may have saved while the backend was thinking.
            wanted = [
                field
                for field in wanted
                if not field_changed_by_editor(current, enrichment, field, drafts.get(field))
            ]
        run = _run(
            current, answer=answer, backend=None, language=language, now=now, by=by,
            outcome=Run.Outcome.OK,
        )  # fmt: skip
        columns = {}
        claimed = set()
        for field in wanted:
            value = _draft_value(draft, field)
            before = current_value(current, enrichment, field)
            FieldDraft.objects.update_or_create(
                item=current,
                field=field,
                defaults={"value": value, "replaced": before, "run": run, "created_at": now},
            )
            if not value:
                continue  # nothing to write: the field keeps what it had
            if field == Field.HEADLINE:
                enrichment.headline = value
            elif field == Field.TAGS:
                items_tag((current.pk, name) for name in value)
            else:
                columns[field] = value
                if field in FEED_OWNED and value != before:
                    claimed.add(field)
        if claimed:
            columns["edited_fields"] = sorted(set(current.edited_fields or []) | claimed)
        if columns:
            # Bumped version: an editor's form opened before this write is told,
            # instead of silently putting the old text back.
            Item.objects.filter(pk=current.pk, status=Item.Status.DRAFT).update(
                **columns, version=F("version") + 1, updated_at=now
            )
        needs = [f for f in answer.needs_editor if f in wanted or f in enrichment.needs_editor]
        _state(
            enrichment,
            Enrichment.State.DONE,
            language=language,
            needs_editor=sorted(set(needs)),
            error="",
            attempts=0,
            enriched_at=now,
        )
    return EnrichResult(
        item.pk,
        "done",
        fields=wanted,
        tokens_in=answer.tokens_in,
        tokens_out=answer.tokens_out,
        cost=answer.cost,
    )


def items_enrich(
    *,
    items: Iterable[Item],
    backend: Backend | None = None,
    regenerate: bool = False,
    by=None,
    now: datetime.datetime | None = None,
    progress: Callable[[EnrichResult], None] | None = None,
) -> EnrichSummary:
    """Enrich each item in turn; once the budget is spent the rest wait, none fails."""
    backend = backend or backend_from_settings()
    summary = EnrichSummary()
    for item in items:
        result = item_enrich(item=item, backend=backend, regenerate=regenerate, by=by, now=now)
        summary.add(result)
        if progress:
            progress(result)
    return summary
