import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from feed.ingest.opml import OpmlError, opml_import
from feed.management.reporting import table
from feed.models import Kind


class Command(BaseCommand):
    help = (
        "Add the feeds of an OPML file (a feed reader's export) as sources. Feeds we have "
        "already are left as they are; folders named after a kind set the kind, other "
        "folders become default tags."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The OPML file, or - for standard input.")
        parser.add_argument(
            "--kind",
            choices=Kind.values,
            default=Kind.BLOG,
            help="Kind of the new sources not in a kind's folder (default: blog).",
        )

    def handle(self, *args, file: str, kind: str, **options):
        if file == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                data = Path(file).read_bytes()
            except OSError as error:
                raise CommandError(f"Cannot read {file}: {error.strerror}") from None
        try:
            result = opml_import(data, kind=kind)
        except OpmlError as error:
            raise CommandError(f"{file}: {error}") from None
        rows = [(s.slug, s.kind, "added", s.feed_url) for s in result.created]
        rows += [(title, "", "already a source", "") for title in result.existing]
        rows += [(title, "", "refused", reason) for title, reason in result.invalid]
        if rows:
            self.stdout.write(table(["source", "kind", "result", "feed / reason"], rows))
        self.stdout.write(
            f"{len(result.created)} sources added, {len(result.existing)} already there, "
            f"{len(result.invalid)} refused."
        )
