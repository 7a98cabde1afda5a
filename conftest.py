"""Test-wide environment, set before Django reads its settings.

The suite runs with DEBUG off, like production; only the values a test run
cannot get from a real environment are given defaults here.
"""

import os
import tempfile
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aitop.settings")
os.environ.setdefault("SECRET_KEY", "tests-only-not-a-secret")
# Not "production": the suite runs on one process with a local cache and
# loopback hosts, which aitop/checks.py refuses in production.
os.environ.setdefault("AITOP_ENVIRONMENT", "test")
# Tasks run the moment they are enqueued, inside the test's transaction.
os.environ.setdefault("TASKS_BACKEND", "immediate")
# Static files straight from static/, without `collectstatic`.
os.environ.setdefault("STATIC_MANIFEST", "0")
# Playwright's sync API runs an event loop in the test thread; the ORM calls
# that the tests make around it are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_configure(config):
    # Load the settings now, so pytest-django's own set-up (which runs after
    # this hook) finds Django configured.
    from django.conf import settings

    settings.INSTALLED_APPS  # noqa: B018
    # Hashing a password the production way takes over a second on a small
    # machine, and the editorial tests make a user in almost every test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    # On SQLite the test database is a file, not Django's shared-cache memory
    # database: tests that run concurrent writers (threads, the live server) then
    # meet SQLite's real locking (WAL, BEGIN IMMEDIATE, a busy timeout) as
    # production does, instead of "database table is locked".
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        name = Path(tempfile.gettempdir()) / f"aitop-tests-{os.getpid()}.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(name)
