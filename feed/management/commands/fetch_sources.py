import datetime
import logging
import time

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from feed.ingest import IngestResult, Outcome, ingest_source
from feed.ingest.due import sources_due
from feed.management.reporting import progress, table
from feed.models import Source

logger = logging.getLogger(__name__)

# How long the command waits for a host's gap before it gives a source up.
MAX_WAIT = datetime.timedelta(minutes=2)


class Command(BaseCommand):
    help = (
        "Fetch sources now, in this process (no worker needed): the due ones by default, "
        "the named ones with --source, every active one with --all. Prints a table of what "
        "each fetch brought."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--source",
            dest="slugs",
            metavar="SLUG",
            nargs="+",
            default=[],
            help="Fetch these sources (by slug), active or not, due or not.",
        )
        parser.add_argument("--all", action="store_true", help="Fetch every active source.")

    def handle(self, *args, slugs: list[str], all: bool, **options):
        if slugs and all:
            raise CommandError("Give --source or --all, not both.")
        sources = self._sources(slugs=slugs, every=all)
        if not sources:
            self.stdout.write("No source to fetch.")
            return
        results = []
        for source in progress(sources, total=len(sources), description="Fetching"):
            results.append((source, self._fetch(source)))
        self.stdout.write(
            table(
                ["source", "status", "new", "updated", "unchanged", "skipped", "seconds", "error"],
                [
                    (
                        source.slug,
                        result.status,
                        result.new,
                        result.updated,
                        result.unchanged,
                        result.skipped,
                        f"{result.seconds:.2f}",
                        (result.error or result.warning)[:80],
                    )
                    for source, result in results
                ],
            )
        )
        totals = [sum(getattr(r, f) for _, r in results) for f in ("new", "updated", "skipped")]
        failed = sum(result.status == Outcome.FAILED for _, result in results)
        self.stdout.write(
            f"{len(results)} sources fetched: {totals[0]} new, {totals[1]} updated, "
            f"{totals[2]} skipped, {failed} failed."
        )

    def _sources(self, *, slugs: list[str], every: bool) -> list[Source]:
        if slugs:
            found = {s.slug: s for s in Source.objects.filter(slug__in=slugs)}
            missing = [slug for slug in slugs if slug not in found]
            if missing:
                raise CommandError(f"No source with the slug {', '.join(missing)}.")
            return [found[slug] for slug in dict.fromkeys(slugs)]
        if every:
            return list(Source.objects.filter(is_active=True).exclude(feed_url="").order_by("id"))
        return list(sources_due(now=timezone.now()))

    def _fetch(self, source: Source) -> IngestResult:
        """Fetch one source; when its host was just fetched, wait for the host's gap."""
        deadline = timezone.now() + MAX_WAIT
        while True:
            try:
                result = ingest_source(source)
            except Exception as error:  # the database itself failed: report, go on
                logger.exception("fetching %s failed", source.slug)
                return IngestResult(source.pk, Outcome.FAILED, error=str(error))
            if result.status != Outcome.DEFERRED or result.next_fetch_at > deadline:
                return result
            time.sleep(max(0.0, (result.next_fetch_at - timezone.now()).total_seconds()))
