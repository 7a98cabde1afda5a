"""Sources in the admin: what we fetch and how each source is doing.

Everything here calls ingestion's own functions: "fetch now" enqueues the
same `fetch_source` task the scheduler does, and "test this feed" queues
the same fetch and read (`feed_test`, in the `check_feed` task) without
writing anything, then shows its progress and its result.
"""

import dataclasses
import datetime
import types

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponseNotAllowed
from django.shortcuts import get_object_or_404, redirect
from django.tasks import TaskResultStatus, default_task_backend
from django.tasks.exceptions import TaskResultDoesNotExist
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import capfirst
from django.utils.timesince import timesince
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from feed.ingest.due import fetch_queue
from feed.ingest.fetch import url_scheme_refusal
from feed.ingest.wording import recorded_text
from feed.models import Source
from feed.tasks import check_feed, fetch_source

RECENT_FETCHES = 20


class HealthFilter(admin.SimpleListFilter):
    title = _("health")
    parameter_name = "health"

    def lookups(self, request, model_admin):
        return [
            ("failing", _("Failing")),
            ("failed", _("Last fetch failed")),
            ("never", _("Never fetched")),
        ]

    def queryset(self, request, queryset):
        if self.value() == "failing":
            return queryset.filter(consecutive_failures__gte=settings.FETCH_FAILING_AFTER)
        if self.value() == "failed":
            return queryset.filter(last_status=Source.Status.FAILED)
        if self.value() == "never":
            return queryset.filter(last_fetched_at__isnull=True)
        return queryset


class SourceForm(forms.ModelForm):
    class Meta:
        model = Source
        fields = [
            "name",
            "slug",
            "kind",
            "handle",
            "is_active",
            "feed_url",
            "homepage_url",
            "fetch_interval",
            "fetch_interval_min",
            "fetch_interval_max",
            "default_category",
            "default_tags",
            "weight",
        ]

    def clean_feed_url(self) -> str:
        url = self.cleaned_data["feed_url"]
        refusal = url_scheme_refusal(url) if url else None
        if refusal:
            # "%(reason)s." so that a language may end the sentence its own way.
            raise forms.ValidationError(
                _("%(reason)s.") % {"reason": capfirst(recorded_text(refusal))}
            )
        return url


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    form = SourceForm
    list_display = [
        "name",
        "kind",
        "is_active",
        "health",
        "last_fetched_at",
        "last_status",
        "consecutive_failures",
        "next_fetch_at",
        "short_error",
    ]
    list_editable = ["is_active"]
    list_filter = [HealthFilter, "kind", "is_active", "last_status"]
    search_fields = ["name", "slug", "handle", "feed_url", "homepage_url"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["fetch_now", "activate", "deactivate"]
    readonly_fields = [
        "etag",
        "last_modified",
        "last_fetched_at",
        "last_status",
        "last_http_status",
        "consecutive_failures",
        "next_fetch_at",
        "error_text",
        "warning_text",
        "lease_owner",
        "lease_expires_at",
        "created_at",
        "updated_at",
        "recent_fetches",
        "feed_test",
    ]
    fieldsets = [
        (None, {"fields": ["name", "slug", "kind", "handle", "is_active"]}),
        (
            _("Feed"),
            {
                "fields": [
                    "feed_url",
                    "feed_test",
                    "homepage_url",
                    ("fetch_interval", "fetch_interval_min", "fetch_interval_max"),
                ]
            },
        ),
        (_("Defaults for new items"), {"fields": ["default_category", "default_tags", "weight"]}),
        (
            _("Health"),
            {
                "fields": [
                    "last_fetched_at",
                    "last_status",
                    "last_http_status",
                    "consecutive_failures",
                    "next_fetch_at",
                    "error_text",
                    "warning_text",
                    "recent_fetches",
                ]
            },
        ),
        (
            _("Fetch state"),
            {
                "fields": [
                    "etag",
                    "last_modified",
                    "lease_owner",
                    "lease_expires_at",
                    "created_at",
                    "updated_at",
                ],
                "classes": ["collapse"],
            },
        ),
    ]

    class Media:
        js = ["feed/admin/preview.js"]

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            # A source not saved yet has no health to show.
            return self.fieldsets[:3]
        return self.fieldsets

    @admin.display(description=_("test this feed"))
    def feed_test(self, source: Source) -> str:
        # Sends the source's own form (the URL as typed) to the test view. Not a
        # submit button: Enter in a field must still save the form.
        return format_html(
            '<button type="button" class="button" name="_test_feed" data-aitop-url="{}" '
            'data-aitop-preview data-aitop-target="aitop-feed-test-result" '
            'data-aitop-working="{}">{}</button>'
            '<div class="help">{}</div>'
            '<div id="aitop-feed-test-result" aria-live="polite"></div>',
            reverse("admin:feed_source_test_feed"),
            _("Fetching…"),
            _("Test this feed"),
            _(
                "Fetches the feed URL above the way the workers will and shows what its "
                "entries would become. Nothing is saved."
            ),
        )

    # Columns.

    @admin.display(description=_("health"))
    def health(self, source: Source) -> str:
        if source.consecutive_failures >= settings.FETCH_FAILING_AFTER:
            return format_html(
                '<strong class="aitop-failing" style="color:#ba2121">{}</strong>',
                _("Failing: %(count)d failures in a row") % {"count": source.consecutive_failures},
            )
        if source.last_status == Source.Status.FAILED:
            return _("Last fetch failed")
        if source.last_status == Source.Status.PARTIAL:
            return _("Imported with warnings")
        if not source.last_fetched_at:
            return _("Never fetched")
        return _("OK")

    @admin.display(description=_("last error"))
    def short_error(self, source: Source) -> str:
        text = recorded_text(source.last_error)
        return text if len(text) <= 80 else text[:79] + "…"

    # Stored in English by the worker, shown in the reader's language (feed.ingest.wording).

    @admin.display(description=_("last error"))
    def error_text(self, source: Source) -> str:
        return recorded_text(source.last_error) or "-"

    @admin.display(description=_("last warning"))
    def warning_text(self, source: Source) -> str:
        return recorded_text(source.last_warning) or "-"

    @admin.display(description=_("recent fetches"))
    def recent_fetches(self, source: Source) -> str:
        if not source.pk:
            return "-"
        attempts = source.fetch_attempts.order_by("-started_at", "-id")[:RECENT_FETCHES]
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"{timezone.localtime(a.started_at):%Y-%m-%d %H:%M:%S}",
                    a.get_status_display(),
                    a.http_status or "",
                    a.items_new,
                    a.items_updated,
                    a.items_unchanged,
                    a.items_skipped,
                    f"{a.duration.total_seconds():.2f} s",
                    recorded_text(a.error or a.warning),
                )
                for a in attempts
            ),
        )
        if not rows:
            return _("No fetch yet.")
        history = reverse("admin:feed_fetchattempt_changelist") + f"?source__id__exact={source.pk}"
        return format_html(
            '<table class="aitop-fetches"><thead><tr><th>{}</th><th>{}</th><th>HTTP</th>'
            "<th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>"
            '<tbody>{}</tbody></table><p><a href="{}">{}</a></p>',
            _("started"),
            _("status"),
            _("new"),
            _("updated"),
            _("unchanged"),
            _("skipped"),
            _("duration"),
            _("error or warning"),
            rows,
            history,
            _("All fetches of this source"),
        )

    # Actions.

    @admin.action(description=_("Fetch now"), permissions=["change"])
    def fetch_now(self, request: HttpRequest, queryset):
        self._enqueue_fetches(request, list(queryset.exclude(feed_url="")))

    @admin.action(description=_("Activate"), permissions=["change"])
    def activate(self, request, queryset):
        count = queryset.update(is_active=True)
        self.message_user(
            request, ngettext("%d source activated.", "%d sources activated.", count) % count
        )

    @admin.action(description=_("Deactivate"), permissions=["change"])
    def deactivate(self, request, queryset):
        count = queryset.update(is_active=False)
        self.message_user(
            request, ngettext("%d source deactivated.", "%d sources deactivated.", count) % count
        )

    def _enqueue_fetches(self, request: HttpRequest, sources: list[Source]) -> None:
        queued = 0
        for source in sources:
            result = fetch_source.enqueue(source.pk)
            if result.is_finished and result.return_value:
                # An immediate backend ran it already: say how it went.
                self.message_user(request, _fetch_message(source, result.return_value))
            else:
                queued += 1
        if queued:
            self.message_user(
                request,
                ngettext(
                    "%d source queued; a worker (manage.py db_worker) will fetch it.",
                    "%d sources queued; a worker (manage.py db_worker) will fetch them.",
                    queued,
                )
                % queued,
            )

    def changelist_view(self, request: HttpRequest, extra_context=None):
        """The source list, headed by the fetch queue's depth and lag."""
        now = timezone.now()
        queue = fetch_queue(now=now)
        context = {
            "fetch_queue": queue,
            # "3 minutes", in the editor's language.
            "fetch_lag": timesince(now - queue.lag, now) if queue.lag is not None else "",
        }
        return super().changelist_view(request, {**(extra_context or {}), **context})

    # Views of our own: "fetch now" on the change page, "test this feed" on the form.

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("test-feed/", wrap(self.test_feed_view), name="feed_source_test_feed"),
            path(
                "test-feed/<str:result_id>/",
                wrap(self.test_feed_result_view),
                name="feed_source_test_feed_result",
            ),
            path("<int:pk>/fetch-now/", wrap(self.fetch_now_view), name="feed_source_fetch_now"),
            *super().get_urls(),
        ]

    def fetch_now_view(self, request: HttpRequest, pk: int):
        """Enqueue a fetch of one source (the change page's "Fetch now" button)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        source = get_object_or_404(Source, pk=pk)
        if not self.has_change_permission(request, source):
            raise PermissionDenied
        if not source.feed_url:
            self.message_user(request, _("This source has no feed URL."), messages.WARNING)
        else:
            self._enqueue_fetches(request, [source])
        return redirect("admin:feed_source_change", pk)

    def test_feed_view(self, request: HttpRequest):
        """Queue a read of the form's feed URL as ingestion would do it; show its progress.

        With a task backend that keeps results (the database one), the fetch
        runs in a worker and the page polls `test_feed_result_view`; with one
        that does not (immediate, dummy), it runs here, as before.
        """
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        self._may_test_feeds(request)
        url = request.POST.get("feed_url", "").strip()
        if url and default_task_backend.supports_get_result:
            queued = check_feed.enqueue(url)
            return self._test_feed_answer(request, url=url, pending=queued)
        result = _FeedTestResult.of(check_feed.call(url)) if url else None
        return self._test_feed_answer(request, url=url, result=result)

    def test_feed_result_view(self, request: HttpRequest, result_id: str):
        """Where a queued test of a feed stands: waiting, running, or its result."""
        self._may_test_feeds(request)
        try:
            queued = check_feed.get_result(result_id)
        except (TaskResultDoesNotExist, ValueError, ValidationError):
            raise Http404(_("No such test of a feed.")) from None
        url = queued.args[0] if queued.args else ""
        if queued.status == TaskResultStatus.SUCCESSFUL:
            return self._test_feed_answer(
                request, url=url, result=_FeedTestResult.of(queued.return_value)
            )
        if queued.status == TaskResultStatus.FAILED:
            failed = _FeedTestResult(status="failed", error=_("the test itself failed."))
            return self._test_feed_answer(request, url=url, result=failed)
        return self._test_feed_answer(request, url=url, pending=queued)

    def _may_test_feeds(self, request: HttpRequest) -> None:
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied

    def _test_feed_answer(self, request, *, url: str, result=None, pending=None):
        waited = (timezone.now() - pending.enqueued_at).total_seconds() if pending else 0
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Test this feed"),
            "feed_url": url,
            "result": result,
            "pending": pending,
            "running": bool(pending) and pending.status == TaskResultStatus.RUNNING,
            # Nobody has taken it for a while: say what runs the queue.
            "no_worker": bool(pending) and waited > FEED_TEST_WORKER_HINT_SECONDS,
            "poll_url": (
                reverse("admin:feed_source_test_feed_result", args=[pending.id]) if pending else ""
            ),
            "entries_shown": 10,
        }
        fragment = request.headers.get("X-Requested-With") == "fetch"
        template = (
            "admin/feed/source/feed_test_result.html"
            if fragment
            else "admin/feed/source/feed_test.html"
        )
        return TemplateResponse(request, template, context)


#: Seconds a queued test waits before the page says no worker seems to run.
FEED_TEST_WORKER_HINT_SECONDS = 10


@dataclasses.dataclass
class _FeedTestResult:
    """A test's return value, as feed_test_result.html reads it."""

    status: str
    error: str = ""
    warning: str = ""
    http_status: int | None = None
    new: int = 0
    unchanged: int = 0
    skipped: int = 0
    skipped_reasons: dict = dataclasses.field(default_factory=dict)
    entries: list = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, value: dict) -> "_FeedTestResult":
        """The task's return value (recorded in English by a worker), in the reader's language."""
        value = {
            **value,
            "error": recorded_text(value.get("error", "")),
            "warning": recorded_text(value.get("warning", "")),
            "skipped_reasons": {
                recorded_text(reason): count
                for reason, count in value.get("skipped_reasons", {}).items()
            },
        }
        entries = [
            types.SimpleNamespace(
                **{**entry, "published_at": datetime.datetime.fromisoformat(entry["published_at"])}
            )
            for entry in value.get("entries", [])
        ]
        fields = {f.name for f in dataclasses.fields(cls)} - {"entries"}
        return cls(**{k: v for k, v in value.items() if k in fields}, entries=entries)


#: How a fetch that brought no fetch state ended, beside Source.Status.
_OUTCOME_LABELS = {"busy": _("Busy"), "deferred": _("Deferred")}


def _outcome_label(status: str) -> str:
    if status in Source.Status.values:
        return Source.Status(status).label
    return _OUTCOME_LABELS.get(status, status)


def _fetch_message(source: Source, result: dict) -> str:
    if result.get("status") in {"failed", "busy", "deferred"}:
        return _("%(source)s: %(status)s — %(error)s") % {
            "source": source,
            "status": _outcome_label(result["status"]),
            "error": recorded_text(result.get("error", "")),
        }
    return _("%(source)s: %(status)s, %(new)d new, %(updated)d updated, %(skipped)d skipped.") % {
        "source": source,
        "status": _outcome_label(result["status"]),
        "new": result.get("new", 0),
        "updated": result.get("updated", 0),
        "skipped": result.get("skipped", 0),
    }
