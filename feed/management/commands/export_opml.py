import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from feed.ingest.opml import opml_export


class Command(BaseCommand):
    help = "Write every source with a feed as OPML 2.0, the format every feed reader imports."

    def add_arguments(self, parser):
        parser.add_argument(
            "file", nargs="?", default="-", help="Where to write (default: standard output)."
        )

    def handle(self, *args, file: str, **options):
        data = opml_export()
        if file == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        try:
            Path(file).write_bytes(data)
        except OSError as error:
            raise CommandError(f"Cannot write {file}: {error.strerror}") from None
        self.stderr.write(f"Wrote {data.count(b'xmlUrl=')} sources to {file}.")
