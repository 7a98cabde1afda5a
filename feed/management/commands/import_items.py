import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from feed.ingest.jsonl import items_import_jsonl
from feed.management.reporting import progress, table


class Command(BaseCommand):
    help = (
        "Import items from a JSON Lines file (one object per line: source, url, title, and "
        "optionally guid, authors, published, summary, body, tags). New items become drafts; "
        "bad lines are reported by number and the good ones imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The .jsonl file, or - for standard input.")

    def handle(self, *args, file: str, **options):
        if file == "-":
            result = items_import_jsonl(sys.stdin)
        else:
            path = Path(file)
            try:
                with path.open("rb") as lines:
                    total = sum(1 for _ in lines)
                    lines.seek(0)
                    result = items_import_jsonl(
                        progress(lines, total=total, description="Importing")
                    )
            except OSError as error:
                raise CommandError(f"Cannot read {file}: {error.strerror}") from None
        problems = [(n, "bad line", reason) for n, reason in result.bad]
        problems += [(n, "skipped", reason) for n, reason in result.skipped]
        if problems:
            self.stdout.write(table(["line", "result", "reason"], sorted(problems)))
        self.stdout.write(
            table(
                ["lines", "new", "updated", "unchanged", "skipped", "bad"],
                [
                    (
                        result.lines,
                        result.new,
                        result.updated,
                        result.unchanged,
                        len(result.skipped),
                        len(result.bad),
                    )
                ],
            )
        )
