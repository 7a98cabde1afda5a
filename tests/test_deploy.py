"""Production settings: check --deploy passes with the example; one-process set-ups refused."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
EXAMPLE = PROJECT / "deploy" / "production.env.example"


def example_env(**overrides: str) -> dict[str, str]:
    """The example file's variables, as a shell would load them, and nothing else of ours."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(PROJECT))}
    for line in EXAMPLE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    env.update(overrides)
    return {name: value for name, value in env.items() if value is not None}


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603
        [sys.executable, "-c", code],
        cwd=PROJECT,
        env={**env, "DJANGO_SETTINGS_MODULE": "aitop.settings"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_check_deploy_passes_at_warning_level_with_the_example_environment():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=example_env())

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_without_hsts_check_deploy_fails_naming_it():
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING", env=example_env(SECURE_HSTS_SECONDS=None)
    )

    assert result.returncode != 0
    assert "security.W004" in result.stderr


@pytest.mark.parametrize("cache_url", ["locmem://", "dummy://"])
def test_production_with_a_per_process_cache_is_refused(cache_url):
    result = manage("check", env=example_env(CACHE_URL=cache_url))

    assert result.returncode != 0
    assert "aitop.E001" in result.stderr
    assert "per-process cache" in result.stderr


@pytest.mark.parametrize("variable", ["AITOP_FETCH_ALLOW_HOSTS", "AITOP_WEBHOOK_ALLOW_HOSTS"])
def test_production_with_an_allow_list_that_opens_private_networks_is_refused(variable):
    result = manage("check", env=example_env(**{variable: "10.0.0.0/8,127.0.0.1"}))

    assert result.returncode != 0
    assert f"aitop.E002) {variable} lets feeds or webhooks reach non-public" in result.stderr


def test_the_wsgi_application_refuses_to_start_in_production_with_a_local_cache():
    result = python("import aitop.wsgi", example_env(CACHE_URL="locmem://"))

    assert result.returncode != 0
    assert "ImproperlyConfigured: AITOP refuses to start: aitop.E001" in result.stderr


def test_the_wsgi_application_starts_with_the_example_environment():
    assert python("import aitop.wsgi", example_env()).returncode == 0


def test_the_wsgi_application_keeps_what_it_loaded_out_of_the_collectors_passes():
    started = python("import gc, aitop.wsgi; print(gc.get_freeze_count())", example_env())

    assert started.returncode == 0, started.stderr
    # Django, the apps and their modules: tens of thousands of objects, frozen.
    assert int(started.stdout.split()[-1]) > 50_000


def test_development_allows_a_local_cache_and_loopback_feeds():
    env = example_env(
        DEBUG="1", CACHE_URL="locmem://", AITOP_FETCH_ALLOW_HOSTS="127.0.0.1", SECRET_KEY=None
    )

    assert manage("check", env=env).returncode == 0


def test_cookies_are_secure_by_default_when_debug_is_off():
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS)"
    )
    production = python(code, example_env(SECURE_COOKIES=None, SECURE_HSTS_SECONDS=None))
    development = python(code, example_env(DEBUG="1", SECURE_COOKIES=None))

    assert production.stdout.split() == ["True", "True", "0"]
    assert development.stdout.split() == ["False", "False", "31536000"]


def test_every_security_setting_comes_from_the_environment():
    code = (
        "from django.conf import settings as s; print(s.SECURE_HSTS_SECONDS, "
        "s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_PROXY_SSL_HEADER)"
    )
    result = python(code, example_env())

    assert result.stdout.strip() == ("31536000 True True True ('HTTP_X_FORWARDED_PROTO', 'https')")


def test_a_database_outage_answers_a_503_within_seconds():
    """Nothing listens on port 1: the pool gives up after its timeout, the page says so."""
    code = (
        "import django, time; django.setup(); from django.test import Client; "
        "start = time.monotonic(); r = Client().get('/', HTTP_HOST='aitop.example', secure=True); "
        "print(r.status_code, r['Retry-After'], round(time.monotonic() - start)); "
        "r = Client().get('/api/v1/items/', HTTP_HOST='aitop.example', secure=True); "
        "print(r.status_code, r.json()['code'])"
    )
    env = example_env(
        DATABASE_URL="postgres://aitop:x@127.0.0.1:1/aitop",
        DATABASE_POOL_TIMEOUT="2",
        CACHE_URL="locmem://",
        AITOP_ENVIRONMENT="test",
        STATIC_MANIFEST="0",
        LOG_LEVEL="CRITICAL",
    )
    started = time.monotonic()

    result = python(code, env)

    page, api = result.stdout.splitlines()
    status, retry_after, seconds = page.split()
    assert (status, retry_after) == ("503", "30")
    assert int(seconds) <= 4
    assert api == "503 unavailable"
    assert time.monotonic() - started < 30


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/feed.xml", "/api/v1/items/", "/admin/login/"])
def test_every_answer_carries_a_nonce_policy_and_a_permissions_policy(client, path):
    response = client.get(path)

    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self';" in policy or "script-src 'self' 'nonce-" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response["Permissions-Policy"].startswith("accelerometer=(), browsing-topics=()")
    assert "camera=()" in response["Permissions-Policy"]


def test_the_procfile_starts_every_process_the_desk_needs_with_real_commands():
    lines = dict(
        line.split(": ", 1)
        for line in (PROJECT / "Procfile").read_text().splitlines()
        if line and not line.startswith("#")
    )
    commands = {
        name: command.split("manage.py ", 1)[1].split()[0]
        for name, command in lines.items()
        if name != "web" and "manage.py" in command
    }

    assert set(lines) == {"release", "web", "worker", "scheduler", "sweeper"}
    assert lines["web"].startswith("gunicorn aitop.wsgi ")
    assert commands == {
        "release": "migrate",
        "worker": "db_worker",
        "scheduler": "fetch_scheduler",
        "sweeper": "desk_sweeper",
    }
    known = manage("help", "--commands", env=example_env(AITOP_ENVIRONMENT="test")).stdout
    assert set(commands.values()) <= set(known.split())
