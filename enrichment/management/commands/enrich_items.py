"""`manage.py enrich_items [--pending] [--limit N] [--regenerate]`: AI drafts for drafts."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from enrichment.backends import backend_from_settings
from enrichment.services import items_enrich, items_pending
from feed.models import Item


class Command(BaseCommand):
    help = (
        "Write AI drafts (headline, summary, why, category, tags) for draft items, "
        "with the backend AITOP_AI_BACKEND names."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--pending",
            action="store_true",
            help="Only drafts not enriched yet, waiting for budget, or failed and retryable.",
        )
        parser.add_argument("--limit", type=int, default=None, help="At most this many items.")
        parser.add_argument(
            "--regenerate",
            action="store_true",
            help="Write every field again, even ones done or changed by an editor.",
        )

    def handle(self, *args, pending: bool, limit: int | None, regenerate: bool, **options):
        if limit is not None and limit < 1:
            raise CommandError("--limit must be 1 or more.")
        items = items_pending() if pending else Item.objects.drafts().order_by("-created_at", "-id")
        total = items.count() if limit is None else min(limit, items.count())
        items = items[:limit] if limit else items
        backend = backend_from_settings()
        with tqdm(
            total=total,
            unit="item",
            disable=options["verbosity"] < 1,
            file=self.stderr._out,
        ) as bar:
            summary = items_enrich(
                items=items.iterator(), backend=backend, regenerate=regenerate,
                progress=lambda result: bar.update(1),
            )  # fmt: skip
        self.stdout.write(
            f"{backend.name}: {summary.done} done, {summary.skipped} skipped, "
            f"{summary.failed} failed, {summary.waiting} waiting for budget; "
            f"tokens {summary.tokens_in} in / {summary.tokens_out} out; "
            f"cost ${summary.cost:.6f}"
        )
