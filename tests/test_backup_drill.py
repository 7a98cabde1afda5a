"""The backup and restore drill (deploy/backup_drill.py) restores the demo desk identically.

It runs on the database the suite runs on: pg_dump → pg_restore on PostgreSQL,
dumpdata → loaddata on SQLite, each into a database of its own.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

PROJECT = Path(__file__).resolve().parent.parent


def _run(*args: str, url: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": url, "DATABASE_POOL": "0", "DEBUG": "1"}
    return subprocess.run(  # noqa: S603 (our own scripts)
        [sys.executable, *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.fixture
def demo_database(tmp_path):
    """A database of its own, migrated and holding the demo desk; its URL."""
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        base = f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/postgres"
        name = f"aitop_drill_{os.getpid()}"
        options = ["-h", s["HOST"] or "127.0.0.1", "-p", str(s["PORT"] or 5432), "-U", s["USER"]]
        env = {**os.environ, **({"PGPASSWORD": s["PASSWORD"]} if s["PASSWORD"] else {})}
        subprocess.run(["dropdb", *options, "--if-exists", name], env=env, check=True)  # noqa: S603, S607
        subprocess.run(["createdb", *options, name], env=env, check=True)  # noqa: S603, S607
        url = urlunsplit(urlsplit(base)._replace(path=f"/{name}"))
    else:
        url = f"sqlite:///{tmp_path / 'desk.sqlite3'}"
    for step in (["migrate", "--noinput", "-v0"], ["load_demo", "--accounts"]):
        done = _run("manage.py", *step, url=url)
        assert done.returncode == 0, done.stderr
    yield url
    if connection.vendor == "postgresql":
        subprocess.run(["dropdb", *options, "--if-exists", name], env=env, check=True)  # noqa: S603, S607


def test_a_backup_restores_into_a_fresh_database_with_zero_differences(demo_database):
    done = _run("deploy/backup_drill.py", "--database-url", demo_database, url=demo_database)

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].endswith(": 0 differences")
    assert not [line for line in lines if line.startswith("DIFFERENT")]
    item_table = "feed_item:" if connection.vendor == "postgresql" else "feed.item:"
    [items] = [line for line in lines if item_table in line]
    assert items.split(":")[1].split("→")[0].strip() not in {"0", "None"}


def test_a_time_dumped_with_and_without_its_zero_milliseconds_compares_equal(tmp_path):
    # Django's JSON encoder writes 08:40:12.000500 as "…12.000"; restored and
    # dumped again, the same time reads "…12". The drill must not call that a difference.
    sys.path.insert(0, str(PROJECT / "deploy"))
    from backup_drill import _objects

    row = {"model": "stories.heatscore", "pk": 1, "fields": {"heat": 5}}
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.write_text(
        json.dumps([{**row, "fields": {**row["fields"], "at": "2026-12-04T08:40:12.000Z"}}])
    )
    second.write_text(
        json.dumps([{**row, "fields": {**row["fields"], "at": "2026-12-04T08:40:12Z"}}])
    )
    later = tmp_path / "later.json"
    later.write_text(
        json.dumps([{**row, "fields": {**row["fields"], "at": "2026-12-04T08:40:12.001Z"}}])
    )

    assert _objects(first) == _objects(second)
    assert _objects(first) != _objects(later)
