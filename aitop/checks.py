"""System checks that refuse to run production on a set-up that only works in one process.

They run with every management command (migrate, db_worker…) and when the
WSGI application loads (aitop/wsgi.py), so gunicorn does not start either.
"""

from django.conf import settings
from django.core import checks

TAG = "aitop_production"
# Caches that live inside one process: throttles, lockout counts, locks and
# page caches would each be per gunicorn worker, i.e. not limits at all.
PER_PROCESS_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}


def _production() -> bool:
    return settings.AITOP_ENVIRONMENT == "production"


@checks.register(TAG)
def shared_cache_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Production needs a cache every process shares (Redis)."""
    if not _production():
        return []
    backend = settings.CACHES["default"]["BACKEND"]
    if backend not in PER_PROCESS_CACHES:
        return []
    return [
        checks.Error(
            f"CACHE_URL gives a per-process cache ({backend.rsplit('.', 1)[-1]}): API "
            "throttles, locks and page caches would not be shared between processes.",
            hint="Set CACHE_URL=redis://host:6379/0 (or AITOP_ENVIRONMENT=development).",
            id="aitop.E001",
        )
    ]


@checks.register(TAG)
def allow_hosts_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Production lets the network guard open no non-public address."""
    if not _production():
        return []
    errors = []
    for name, value in (
        ("AITOP_FETCH_ALLOW_HOSTS", settings.FETCH_ALLOW_HOSTS),
        ("AITOP_WEBHOOK_ALLOW_HOSTS", settings.WEBHOOK_ALLOW_HOSTS),
    ):
        # Public hosts pass the guard anyway: an entry here only ever opens a
        # loopback, private or otherwise internal address (or a name for one).
        if value:
            errors.append(
                checks.Error(
                    f"{name} lets feeds or webhooks reach non-public addresses "
                    f"({len(value)} entries); in production that is a way into "
                    "the internal network.",
                    hint=f"Unset {name} in production.",
                    id="aitop.E002",
                )
            )
    return errors


def refuse_to_start() -> None:
    """Raise when a production check fails: called as the WSGI application loads."""
    from django.core.exceptions import ImproperlyConfigured

    serious = [error for error in checks.run_checks(tags=[TAG]) if error.is_serious()]
    if serious:
        raise ImproperlyConfigured(
            "AITOP refuses to start: " + " ".join(f"{e.id}: {e.msg}" for e in serious)
        )
