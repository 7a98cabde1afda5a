"""What the feed commands print (a progress bar, a table at the end), and seeding runs."""

import sys
import time
from collections.abc import Callable, Iterable, Sequence

from django.core.management.base import CommandError
from django.db import connection
from tqdm import tqdm


def progress(iterable: Iterable, *, total: int, description: str) -> Iterable:
    """Iterate with a progress bar on stderr when it is a terminal, silently otherwise."""
    return tqdm(
        iterable,
        total=total,
        desc=description,
        unit="",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
    )


def seeded(seeding: Callable, **options) -> tuple[object, float]:
    """Run a benchmark seeding function with a progress bar: its result and the seconds it took.

    Its ValueError (a database it must not touch) becomes the command's
    error. After it, the database is left as one that has been running a
    while: the tables' statistics refreshed and, on PostgreSQL, vacuumed as
    autovacuum would after so many inserts, so the visibility map lets
    index-only scans skip the table (without it every one of them read the
    table's pages: a server with autovacuum off is not what the benchmark
    measures).
    """
    started = time.perf_counter()
    try:
        result = seeding(
            progress=lambda rows, total, what: progress(rows, total=total, description=what),
            **options,
        )
    except ValueError as error:
        raise CommandError(str(error)) from None
    with connection.cursor() as cursor:
        # VACUUM cannot run inside a transaction (a test's): ANALYZE alone there.
        vacuum = connection.vendor == "postgresql" and not connection.in_atomic_block
        cursor.execute("VACUUM ANALYZE" if vacuum else "ANALYZE")
    return result, time.perf_counter() - started


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A plain-text table with aligned columns (numbers to the right)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [all(row[i].isdigit() for row in cells[1:] if row[i]) for i in range(len(headers))]

    def line(row):
        return "  ".join(
            cell.rjust(width) if is_number else cell.ljust(width)
            for cell, width, is_number in zip(row, widths, numeric, strict=True)
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(cells[0]), rule, *(line(row) for row in cells[1:])])
