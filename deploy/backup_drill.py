"""Backup and restore drill: back a database up, restore it into a fresh one, compare every row.

    python deploy/backup_drill.py --database-url postgres://postgres@127.0.0.1:5432/aitop
    python deploy/backup_drill.py --database-url sqlite:///db.sqlite3

PostgreSQL: `pg_dump --format=custom` → a new database → `pg_restore`, then
every table's row count and a digest of all its rows (and every sequence's
position) compared between the two. SQLite: `manage.py dumpdata` → a new,
migrated file → `manage.py loaddata`, then the restored database dumped again
and compared with the first dump object by object. The database backed up is
only read; the restored one is dropped afterwards unless --keep. Prints one
line per table and exits 1 when anything differs.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

PROJECT = Path(__file__).resolve().parent.parent

# Rows that `migrate` makes itself, so the restored database has its own
# (matched by natural key: a restored group keeps its permissions).
DUMP_EXCLUDE = ["contenttypes", "auth.permission"]


def _run(*args: str, env: dict | None = None) -> str:
    done = subprocess.run(  # noqa: S603 (our own tools and the PostgreSQL client)
        list(args), capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[:3])}… failed:\n{done.stderr.strip()}")
    return done.stdout


def _manage(database_url: str, *args: str) -> str:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DATABASE_POOL": "0",
        "DEBUG": os.environ.get("DEBUG", "1"),
        "AITOP_ENVIRONMENT": "development",
    }
    return _run(sys.executable, str(PROJECT / "manage.py"), *args, env=env)


def _pg_parts(url: str) -> tuple[list[str], str]:
    """psql-style connection options and the database name of a postgres:// URL."""
    parts = urlsplit(url)
    options = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432)]
    if parts.username:
        options += ["-U", parts.username]
    return options, parts.path.lstrip("/")


def _pg_env(url: str) -> dict:
    password = urlsplit(url).password
    return {**os.environ, **({"PGPASSWORD": password} if password else {})}


def _pg_fingerprint(url: str) -> dict[str, tuple[int, str]]:
    """Per table: (rows, md5 of every row in order); per sequence: its position."""
    options, name = _pg_parts(url)
    psql = ["psql", *options, "-d", name, "-tAX", "-v", "ON_ERROR_STOP=1"]
    tables = _run(
        *psql,
        "-c",
        "SELECT quote_ident(table_name) FROM information_schema.tables "
        "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
        env=_pg_env(url),
    ).split()
    found: dict[str, tuple[int, str]] = {}
    for table in tables:
        row = _run(
            *psql,
            "-c",
            f"SELECT count(*), coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') "  # noqa: S608
            f"FROM {table} t",
            env=_pg_env(url),
        ).strip()
        count, digest = row.split("|")
        found[table] = (int(count), digest)
    sequences = _run(
        *psql,
        "-c",
        "SELECT schemaname || '.' || sequencename, coalesce(last_value, 0) FROM pg_sequences "
        "WHERE schemaname = 'public' ORDER BY 1",
        env=_pg_env(url),
    ).split()
    for line in sequences:
        sequence, value = line.split("|")
        found[f"sequence {sequence}"] = (int(value), "")
    return found


def drill_postgres(url: str, *, keep: bool) -> dict[str, tuple]:
    """pg_dump → createdb → pg_restore; both fingerprints side by side."""
    options, name = _pg_parts(url)
    target = f"{name}_restore_drill"
    target_url = urlunsplit(urlsplit(url)._replace(path=f"/{target}"))
    with tempfile.TemporaryDirectory() as folder:
        dump = Path(folder) / f"{name}.dump"
        started = time.monotonic()
        _run(
            "pg_dump",
            *options,
            "--format=custom",
            "--no-owner",
            "-f",
            str(dump),
            name,
            env=_pg_env(url),
        )
        dumped = time.monotonic() - started
        _run("dropdb", *options, "--if-exists", target, env=_pg_env(url))
        _run("createdb", *options, target, env=_pg_env(url))
        try:
            started = time.monotonic()
            _run(
                "pg_restore",
                *options,
                "--no-owner",
                "--exit-on-error",
                "-d",
                target,
                str(dump),
                env=_pg_env(url),
            )
            restored = time.monotonic() - started
            print(
                f"pg_dump {dump.stat().st_size:,} bytes in {dumped:.1f} s, "
                f"pg_restore in {restored:.1f} s"
            )
            before, after = _pg_fingerprint(url), _pg_fingerprint(target_url)
        finally:
            if not keep:
                _run("dropdb", *options, "--if-exists", target, env=_pg_env(url))
    return {table: (before.get(table), after.get(table)) for table in sorted({*before, *after})}


# A time as dumpdata writes it: Django's JSON encoder keeps milliseconds and
# drops a fraction that is all zeros ("…:12.000500" is dumped as "…:12.000",
# restored as :12, and dumped again as "…:12"): the same time, two spellings.
_DUMPED_TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$")


def _canonical_time(value):
    """A dumped time with its milliseconds always written, so both spellings compare equal."""
    if isinstance(value, str) and (match := _DUMPED_TIME.match(value)):
        seconds, fraction, zone = match.groups()
        return f"{seconds}.{(fraction or '.')[1:4].ljust(3, '0')}{zone or ''}"
    return value


def _objects(dump: Path) -> dict[str, list[str]]:
    """A dumpdata file as model → its objects (canonical JSON), in a fixed order."""
    grouped: dict[str, list[str]] = {}
    for obj in json.loads(dump.read_text()):
        obj["fields"] = {name: _canonical_time(value) for name, value in obj["fields"].items()}
        grouped.setdefault(obj["model"], []).append(json.dumps(obj, sort_keys=True))
    return {model: sorted(objs) for model, objs in grouped.items()}


def drill_sqlite(url: str, *, keep: bool) -> dict[str, tuple]:
    """dumpdata → a new migrated file → loaddata → dumpdata again; both dumps side by side."""
    dump_args = ["dumpdata", "--natural-foreign", "--natural-primary"]
    for label in DUMP_EXCLUDE:
        dump_args += ["--exclude", label]
    folder = Path(tempfile.mkdtemp(prefix="aitop-drill-"))
    first, second = folder / "backup.json", folder / "restored.json"
    target_url = f"sqlite:///{folder / 'restored.sqlite3'}"
    started = time.monotonic()
    _manage(url, *dump_args, "--output", str(first))
    dumped = time.monotonic() - started
    _manage(target_url, "migrate", "--noinput", "-v0")
    started = time.monotonic()
    _manage(target_url, "loaddata", str(first))
    restored = time.monotonic() - started
    _manage(target_url, *dump_args, "--output", str(second))
    print(
        f"dumpdata {first.stat().st_size:,} bytes in {dumped:.1f} s, loaddata in {restored:.1f} s"
    )
    before, after = _objects(first), _objects(second)
    if not keep:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()

    def fingerprint(objs: list[str]) -> tuple[int, str]:
        return len(objs), hashlib.sha256("\n".join(objs).encode()).hexdigest()

    return {
        model: (fingerprint(before.get(model, [])), fingerprint(after.get(model, [])))
        for model in sorted({*before, *after})
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"), required=False)
    parser.add_argument("--keep", action="store_true", help="keep the restored database")
    args = parser.parse_args(argv)
    url = args.database_url or f"sqlite:///{PROJECT / 'db.sqlite3'}"
    scheme = urlsplit(url).scheme
    if scheme in {"postgres", "postgresql"}:
        compared = drill_postgres(url, keep=args.keep)
    elif scheme == "sqlite":
        compared = drill_sqlite(url, keep=args.keep)
    else:
        parser.error(f"a postgres:// or sqlite:// URL, not {scheme}://")
    differences = 0
    rows = 0
    for table, (before, after) in compared.items():
        same = before == after
        differences += not same
        rows += before[0] if before and not table.startswith("sequence") else 0
        print(
            f"{'same' if same else 'DIFFERENT':9} {table}: {before and before[0]} → "
            f"{after and after[0]}"
        )
    print(f"{len(compared)} tables, {rows:,} rows: {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
