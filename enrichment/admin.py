"""The editors' view of AI drafts: beside each field, its draft, a diff and where it came from.

The item admin belongs to `editorial`; `item_admin_extend` (called from our
AppConfig.ready) adds our inline, actions and filter to it, so that module
needs no line of ours.
"""

import difflib

from django.contrib import admin, messages
from django.tasks import TaskResultStatus
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from enrichment.models import Enrichment, Field, FieldDraft, Run, UsageDay
from enrichment.services import current_value
from enrichment.tasks import enrich_items_task
from feed.models import Item


def diff_html(before: str, after: str) -> str:
    """`before` → `after` as HTML: removed text in <del>, added text in <ins>."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    parts = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(("{}", before[a1:a2]))
            continue
        if a2 > a1:
            parts.append(("<del>{}</del>", before[a1:a2]))
        if b2 > b1:
            parts.append(("<ins>{}</ins>", after[b1:b2]))
    return format_html_join("", "{}", ((format_html(fmt, text),) for fmt, text in parts))


def _shown(value) -> str:
    if isinstance(value, list):
        return ", ".join(value)
    return value or ""


class EnrichmentInline(admin.StackedInline):
    """The item's AI drafts; the headline is the editor's to correct."""

    model = Enrichment
    can_delete = False
    extra = 0
    max_num = 1
    fields = ["state", "headline", "original_title", "left_for_editor", "error", "drafts"]
    readonly_fields = ["state", "original_title", "left_for_editor", "error", "drafts"]
    verbose_name = gettext_lazy("AI draft")
    verbose_name_plural = gettext_lazy("AI draft")

    # Editors work on items; they see and correct the item's drafts with it.
    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("feed.view_item")

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("feed.change_item")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=gettext_lazy("original title"))
    def original_title(self, enrichment: Enrichment) -> str:
        return enrichment.item.title

    @admin.display(description=gettext_lazy("left for an editor"))
    def left_for_editor(self, enrichment: Enrichment) -> str:
        labels = dict(Field.choices)
        return ", ".join(str(labels.get(name, name)) for name in enrichment.needs_editor) or "–"

    @admin.display(description=gettext_lazy("drafts and provenance"))
    def drafts(self, enrichment: Enrichment) -> str:
        item = enrichment.item
        rows = []
        for draft in FieldDraft.objects.filter(item=item).select_related("run").order_by("field"):
            final = _shown(current_value(item, enrichment, draft.field))
            ai = _shown(draft.value)
            run = draft.run
            rows.append(
                (
                    draft.get_field_display(),
                    ai or "–",
                    final or "–",
                    diff_html(ai, final) if ai != final else _("unchanged"),
                    f"{run.backend} {run.model} {run.prompt_version}".strip(),
                    f"{timezone.localtime(run.started_at):%Y-%m-%d %H:%M}",
                    f"{run.tokens_in} / {run.tokens_out}",
                    f"${run.cost}",
                )
            )
        if not rows:
            return "–"
        head = format_html_join(
            "",
            "<th scope='col'>{}</th>",
            (
                (label,)
                for label in (
                    _("field"),
                    _("AI draft"),
                    _("editor's final text"),
                    _("diff"),
                    _("written by"),
                    _("when"),
                    _("tokens in / out"),
                    _("cost"),
                )
            ),
        )
        body = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td><td>{}</td><td class='enrichment-diff'>{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            rows,
        )
        return format_html(
            "<table class='enrichment-drafts'><thead><tr>{}</tr></thead><tbody>{}</tbody></table>",
            head,
            body,
        )


def _report(modeladmin, request, result, count: int) -> None:
    """The outcome of the queued task, or that it was queued."""
    summary = result.return_value if result.status == TaskResultStatus.SUCCESSFUL else None
    if summary is None:
        modeladmin.message_user(
            request,
            ngettext(
                "%(count)d item queued for AI drafts.",
                "%(count)d items queued for AI drafts.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )
        return
    modeladmin.message_user(
        request,
        _("AI drafts: %(done)d done, %(skipped)d skipped, %(failed)d failed, %(waiting)d waiting.")
        % summary,
        messages.WARNING if summary["failed"] or summary["waiting"] else messages.SUCCESS,
    )


def _enqueue(modeladmin, request, queryset, *, regenerate: bool) -> None:
    ids = list(queryset.drafts().values_list("pk", flat=True))
    if not ids:
        modeladmin.message_user(request, _("Only drafts get AI drafts."), messages.WARNING)
        return
    result = enrich_items_task.enqueue(ids, regenerate, request.user.pk)
    _report(modeladmin, request, result, len(ids))


@admin.action(
    description=gettext_lazy("Write AI drafts for selected items"), permissions=["change"]
)
def enrich_selected(modeladmin, request, queryset) -> None:
    _enqueue(modeladmin, request, queryset, regenerate=False)


@admin.action(
    description=gettext_lazy("Regenerate AI drafts for selected items"), permissions=["change"]
)
def regenerate_selected(modeladmin, request, queryset) -> None:
    _enqueue(modeladmin, request, queryset, regenerate=True)


class EnrichmentStateFilter(admin.SimpleListFilter):
    title = gettext_lazy("AI draft")
    parameter_name = "ai"

    def lookups(self, request, model_admin):
        return [("none", _("Not yet")), *Enrichment.State.choices]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(enrichment__isnull=True)
        if self.value() in Enrichment.State.values:
            return queryset.filter(enrichment__state=self.value())
        return queryset


def item_admin_extend(site: admin.AdminSite = admin.site) -> None:
    """Give the registered item admin our inline, our two actions and our filter."""
    model_admin = site._registry.get(Item)
    if model_admin is None or EnrichmentInline in model_admin.inlines:
        return
    model_admin.inlines = [*model_admin.inlines, EnrichmentInline]
    model_admin.actions = [*(model_admin.actions or []), enrich_selected, regenerate_selected]
    model_admin.list_filter = [*model_admin.list_filter, EnrichmentStateFilter]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    """Every call made, with what it cost: read only."""

    list_display = ["started_at", "item", "backend", "model", "prompt_version", "outcome"]
    list_filter = ["outcome", "backend", "prompt_version"]
    list_select_related = ["item"]
    readonly_fields = [f.name for f in Run._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(UsageDay)
class UsageDayAdmin(admin.ModelAdmin):
    """Spend per day against the budget: read only."""

    list_display = ["day", "calls", "tokens_in", "tokens_out", "cost"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
