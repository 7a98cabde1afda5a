"""AITOP settings: one file, every deployment difference read from the environment.

Development and production differ only by environment variables; README.md
lists them. Helpers in aitop.env fail loudly, naming the variable.
"""

import datetime
import zoneinfo
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from aitop.env import (
    cache_from_url,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_number_map,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off: export SECRET_KEY to a long random "
            "string (python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    # Development only: a fixed key so sessions survive a restart of `make run`.
    SECRET_KEY = "django-insecure-aitop-development-only"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Where this process runs: "production" (DEBUG off) gets the checks of
# aitop/checks.py that refuse a set-up which only works in one process; the
# test suite says "test", `make run` (DEBUG on) is "development".
AITOP_ENVIRONMENT = env_str("AITOP_ENVIRONMENT", "development" if DEBUG else "production")
if AITOP_ENVIRONMENT not in {"production", "development", "test"}:
    raise ImproperlyConfigured(
        f"AITOP_ENVIRONMENT must be production, development or test, not {AITOP_ENVIRONMENT!r}."
    )

# HTTPS. Every setting of `manage.py check --deploy` comes from the environment;
# deploy/production.env.example sets them all.
# Behind a TLS-terminating proxy (the production layout in README.md).
if env_bool("BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# Secure cookies unless DEBUG: a production site that forgets the variable
# still never sends a session over plain HTTP.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (Django's own middleware): scripts and styles only
# from our origin or carrying the request's nonce ({{ csp_nonce }}), never
# inline. Images may come from feeds' HTTPS hosts (item bodies show them).
# The API docs loosen styles only (api/views/base.py): their bundles inject them.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:", "https:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
# Browser features no page of ours uses, switched off for every page.
AITOP_PERMISSIONS_POLICY = (
    "accelerometer=(), browsing-topics=(), camera=(), display-capture=(), geolocation=(), "
    "gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()"
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Lets `runserver` serve static files the way whitenoise does in production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "taggit",
    # django-tasks-db, with a translated name (aitop.apps).
    "aitop.tasks_app.TasksDatabaseConfig",
    "aitop",
    "feed",
    "editorial",
    "enrichment",
    "stories",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "api",
    "webhooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "aitop.middleware.PermissionsPolicyMiddleware",
    "aitop.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A current cached public page is answered here, before the session, the
    # resolver and the rest run (feed/warm.py adds the headers those add).
    "feed.warm.WarmPageMiddleware",
    # The same for anonymous API reads (api/cache.py), counted against the anonymous rate.
    "api.cache.AnonymousAnswerMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language comes from the URL (/en/…); old language cookies are redirected there.
    "feed.locale.PathLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a lockout that axes flagged during the request into our 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "aitop.urls"
WSGI_APPLICATION = "aitop.wsgi.application"
ASGI_APPLICATION = "aitop.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]


# Our own small plain-SQL statements on a page's path are prepared once a
# connection on PostgreSQL (feed.sql.prepared_cursor). Off behind a
# transaction-pooling PgBouncer older than 1.21, which cannot keep them.
AITOP_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", True)


# Database: SQLite in the project folder unless DATABASE_URL says otherwise.
def _database(url: str) -> dict:
    try:
        config = dj_database_url.parse(url, conn_health_checks=True)
    except ValueError as error:
        raise ImproperlyConfigured(f"DATABASE_URL is not usable: {error}") from None
    engine = config["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        config["OPTIONS"] = {
            # BEGIN IMMEDIATE takes the write lock up front, so a worker and the
            # web process queue for it instead of failing with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    elif engine == "django.db.backends.postgresql":
        if env_bool("DATABASE_POOL", True):
            # Django's psycopg 3 pool; persistent connections must then be off.
            config["CONN_MAX_AGE"] = 0
            config.setdefault("OPTIONS", {})["pool"] = {
                "min_size": env_int("DATABASE_POOL_MIN", 1),
                "max_size": env_int("DATABASE_POOL_MAX", 10),
                # Seconds a request waits for a connection (psycopg's default is
                # 30): when the database is down, readers get the 503 page fast.
                "timeout": env_float("DATABASE_POOL_TIMEOUT", 5.0),
            }
        # Seconds to reach the server at all, pool or not.
        config.setdefault("OPTIONS", {})["connect_timeout"] = env_int("DATABASE_CONNECT_TIMEOUT", 5)
        # No JIT: at a million items the planner's costs pass jit_above_cost and
        # compiling took 30-60 ms of queries that run in 20 (docs/benchmarks.md).
        # No parallel workers by default: every public query is bounded, and the
        # workers a parallel plan starts compete with the other requests for the
        # same cores (a cold two-tag page at a million items on 2 cores: 15 → 26
        # req/s, docs/benchmarks.md). DATABASE_PARALLEL_WORKERS gives them back.
        parallel = env_int("DATABASE_PARALLEL_WORKERS", 0)
        config["OPTIONS"]["options"] = f"-c jit=off -c max_parallel_workers_per_gather={parallel}"
        # Django leaves psycopg's threshold at None, which refuses every prepare.
        # The ORM's cursors bind on the client and are never prepared whatever
        # it is; only `prepared_cursor`'s are, each on its first run.
        if AITOP_PREPARED_STATEMENTS:
            config["OPTIONS"]["prepare_threshold"] = 5
    else:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a sqlite:// or postgres:// URL, not one for {engine}."
        )
    return config


DATABASES = {
    "default": _database(env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = {"default": cache_from_url("CACHE_URL", env_str("CACHE_URL") or "locmem://aitop")}

# Background work: Django's tasks framework. The database backend (a queue in
# our own database, drained by `manage.py db_worker`) unless TASKS_BACKEND says
# "immediate" (run on enqueue: the tests) or "dummy" (record, never run).
_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
    "dummy": "django.tasks.backends.dummy.DummyBackend",
}
_task_backend = env_str("TASKS_BACKEND", "database")
if _task_backend not in _TASK_BACKENDS:
    raise ImproperlyConfigured(
        f"TASKS_BACKEND must be one of {', '.join(_TASK_BACKENDS)}, not {_task_backend!r}."
    )
TASKS = {
    "default": {
        "BACKEND": _TASK_BACKENDS[_task_backend],
        "QUEUES": ["default"],
    }
}
# A task RUNNING for longer than this is taken for lost (its worker was killed)
# and requeued by `manage.py desk_sweeper` (aitop/tasklease.py); it must be
# longer than any task of ours runs (a fetch is bounded by 60 s, a webhook try by 10 s).
AITOP_TASK_LEASE_SECONDS = env_float("AITOP_TASK_LEASE_SECONDS", 900.0)
# Claims after which a task that never finishes is failed instead of requeued.
AITOP_TASK_MAX_CLAIMS = env_int("AITOP_TASK_MAX_CLAIMS", 3)
# Seconds between two rounds of `manage.py desk_sweeper`.
AITOP_SWEEP_INTERVAL = env_float("AITOP_SWEEP_INTERVAL", 60.0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Languages: Chinese first, English by choice.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True

TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(
        f"TIME_ZONE must be an IANA zone name such as Asia/Shanghai, not {TIME_ZONE!r}."
    ) from None
USE_TZ = True

# Static files: our own stylesheet, served by whitenoise (no CDN).
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Hashed, compressed files (production) need `collectstatic`; development and
# the tests serve the files as they are, straight from static/.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", not DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage",
    },
}
if not STATIC_MANIFEST:
    WHITENOISE_USE_FINDERS = True
    WHITENOISE_AUTOREFRESH = True

LOGIN_URL = "admin:login"

# Lockout after failed logins (django-axes): the admin login and API tokens
# (api/lockout.py), counted per user and address, kept in the database so
# every web process sees them; an admin unlocks under "Axes → Access attempts"
# (delete the row) or with `manage.py axes_reset_username NAME`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AITOP_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env_int("AITOP_LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "api.lockout.client_address"
AXES_LOCKOUT_CALLABLE = "api.lockout.lockout_response"
# Successful logins are in Django's own records (last_login); keep only failures.
AXES_DISABLE_ACCESS_LOG = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # httpx logs every request at INFO; the fetch history already has them.
        "httpx": {"level": "WARNING"},
        # axes logs every login at INFO; lockouts (WARNING) are what matter.
        "axes": {"level": "WARNING"},
    },
}

# AITOP's own settings. There is no site-name setting: "AITOP" is the brand,
# written in the templates and inside translated sentences, not configurable.
# Python names: AITOP_* for the site, FETCH_* and WEBHOOK_* for those two
# subsystems; each of their environment variables is AITOP_* (beside the
# usual DATABASE_URL, SECRET_KEY…). The Python names stay: code, docs and tests
# read them by name, and what an operator sets, the variable, is uniform already.
# How many cards a stream, day or tag page shows at most (then a keyset link to the next).
AITOP_STREAM_PAGE_ITEMS = env_int("AITOP_STREAM_PAGE_ITEMS", 50)
# Public pages and the cache (docs/caching.md). How long a shared cache (a CDN,
# a reverse proxy) may hold a public page without asking: `Cache-Control: public, max-age=`.
AITOP_PUBLIC_MAX_AGE = env_int("AITOP_PUBLIC_MAX_AGE", 60)
# How long a rendered page or card stays in our cache at most; a change replaces it sooner.
AITOP_PAGE_CACHE_SECONDS = env_int("AITOP_PAGE_CACHE_SECONDS", 3600)
AITOP_CARD_CACHE_SECONDS = env_int("AITOP_CARD_CACHE_SECONDS", 24 * 3600)
# Where requests read the publish generation: "cache" (shared by every
# process: Redis), "database" (one primary-key read) or "auto" (the cache
# unless it is per-process, like locmem, which another process's bump never reaches).
AITOP_GENERATION_STORE = env_str("AITOP_GENERATION_STORE", "auto")
if AITOP_GENERATION_STORE not in ("auto", "cache", "database"):
    raise ImproperlyConfigured(
        f"AITOP_GENERATION_STORE must be auto, cache or database, not {AITOP_GENERATION_STORE!r}."
    )
AITOP_GENERATION_CACHE_SECONDS = env_int("AITOP_GENERATION_CACHE_SECONDS", 60)
# Paths that never hold a public page: feed/warm.py passes them on without a cache read.
AITOP_WARM_SKIP_PREFIXES = ("/admin/", "/api/", "/editorial/", "/i18n/", f"/{STATIC_URL}")
# A request that finds another rendering the same page waits this long for it, then renders.
AITOP_RENDER_WAIT_SECONDS = env_float("AITOP_RENDER_WAIT_SECONDS", 2.0)
# Tag and source counts (the aside, /tags/, /sources/, the API's tags) cover
# at most this many of the newest matching items, so they cost the same at any size.
AITOP_FACET_WINDOW = env_int("AITOP_FACET_WINDOW", 500)
# Heat halves every this many hours (stories/heat.py, docs/heat.md).
AITOP_HEAT_HALF_LIFE_HOURS = env_float("AITOP_HEAT_HALF_LIFE_HOURS", 24.0)
# Stories in a day's brief (/daily/<date>/).
AITOP_DAILY_BRIEF_SIZE = env_int("AITOP_DAILY_BRIEF_SIZE", 10)
# Our few overrides of Django's date formats (see aitop/formats/).
FORMAT_MODULE_PATH = ["aitop.formats"]

# The REST API (api/, under /api/v1/). Every default that DRF leaves open is
# set here on purpose, so reading this block tells what a caller may do.
REST_FRAMEWORK = {
    # Token first: its `WWW-Authenticate: Token` header makes a missing or bad
    # token a 401 (with Session first, DRF would answer 403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Reads for anyone, writes only with the model permission; views narrow it.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly"
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.KeysetPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": [],
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.AnonymousThrottle",
        "api.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("AITOP_API_ANON_RATE", "60/min"),
        "user": env_str("AITOP_API_USER_RATE", "600/min"),
    },
    # How many proxies in front of us append to X-Forwarded-For. 0: the client
    # is REMOTE_ADDR and the header is ignored, so a forged one dodges nothing.
    "NUM_PROXIES": env_int("AITOP_API_NUM_PROXIES", 0),
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # The browsable API is for logged-in staff; everyone else gets JSON.
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.StaffBrowsableNegotiation",
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_VERSIONING_CLASS": None,
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "AITOP API",
    "DESCRIPTION": (
        "Published AI news with the public site's filters; token-authenticated submissions "
        "and editorial actions. Errors always have the shape of the `Error` schema."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and Redoc from our own static files: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_error_responses",
    ],
    "TAGS": [
        {
            "name": "items",
            "description": "Published items; submissions, edits and editorial moves.",
        },
        {"name": "sources", "description": "Where items come from."},
        {"name": "tags", "description": "Tags of the (filtered) stream with their item counts."},
        {"name": "days", "description": "Days of the (filtered) stream with their item counts."},
    ],
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "feed.models.Kind",
        "CategoryEnum": "feed.models.Category",
        "ItemStatusEnum": "feed.models.Item.Status",
    },
}
# Longest value of any API parameter (query string, path, JSON string field).
AITOP_API_MAX_PARAMETER_LENGTH = env_int("AITOP_API_MAX_PARAMETER_LENGTH", 2000)
# The address of the public site, for absolute links in webhook bodies (no
# request to take it from there), e.g. https://aitop.example. Empty: relative links.
AITOP_PUBLIC_URL = env_str("AITOP_PUBLIC_URL", "").rstrip("/")

# Webhooks (webhooks/): signed POSTs to receivers that editors register.
# Seconds for one try, all of it: connecting, sending, the answer's headers and body.
WEBHOOK_TIMEOUT = env_float("AITOP_WEBHOOK_TIMEOUT", 10.0)
# Seconds a worker holds a delivery while trying it; a worker killed mid-try
# leaves it due again after this (longer than the try itself).
WEBHOOK_CLAIM_SECONDS = env_float("AITOP_WEBHOOK_CLAIM_SECONDS", 120.0)
WEBHOOK_MAX_ATTEMPTS = env_int("AITOP_WEBHOOK_MAX_ATTEMPTS", 8)
# The wait before try n+1 is BASE * 4**(n-1) seconds, at most MAX.
WEBHOOK_BACKOFF_BASE = env_int("AITOP_WEBHOOK_BACKOFF_BASE", 30)
WEBHOOK_BACKOFF_MAX = env_int("AITOP_WEBHOOK_BACKOFF_MAX", 6 * 3600)
# Receivers on non-public addresses are refused by the network guard, as
# feeds are; tests and local development list their own hosts here.
WEBHOOK_ALLOW_HOSTS = env_list("AITOP_WEBHOOK_ALLOW_HOSTS")
# Fetching feeds (feed/ingest/). Feeds come from the open internet, so every
# limit below is there to keep a broken or hostile one from hurting a run.
# Host names or addresses that the network guard lets through although they
# are not public (loopback, private…): tests and local development only.
FETCH_ALLOW_HOSTS = env_list("AITOP_FETCH_ALLOW_HOSTS")
# A CA bundle to verify TLS with instead of certifi's (a company proxy's CA).
FETCH_CA_BUNDLE = env_str("AITOP_FETCH_CA_BUNDLE", "")
# Names AITOP; a deployment adds its own contact URL, as feed hosts like to see.
FETCH_USER_AGENT = env_str("AITOP_FETCH_USER_AGENT", "AITOP/0.1 (AI news desk; feed fetcher)")
FETCH_CONNECT_TIMEOUT = env_float("AITOP_FETCH_CONNECT_TIMEOUT", 10.0)  # seconds
FETCH_READ_TIMEOUT = env_float("AITOP_FETCH_READ_TIMEOUT", 20.0)  # seconds between two reads
FETCH_TOTAL_TIMEOUT = env_float("AITOP_FETCH_TOTAL_TIMEOUT", 60.0)  # seconds for a whole fetch
# Largest body we read, counted after decompression (so a gzip bomb stops here).
FETCH_MAX_BYTES = env_int("AITOP_FETCH_MAX_BYTES", 10 * 1024 * 1024)
FETCH_MAX_REDIRECTS = env_int("AITOP_FETCH_MAX_REDIRECTS", 5)
# Entries taken from one fetch; the rest are reported as skipped.
FETCH_MAX_ENTRIES = env_int("AITOP_FETCH_MAX_ENTRIES", 200)
# A document with more entries than this is refused before it is parsed: a
# 10 MB feed of 140,000 tiny items would cost minutes of CPU to read 200.
FETCH_MAX_DOCUMENT_ENTRIES = env_int("AITOP_FETCH_MAX_DOCUMENT_ENTRIES", 5000)
# Seconds between two requests to one host (name and port); arXiv asks for 3.
FETCH_HOST_GAP = env_float("AITOP_FETCH_HOST_GAP", 1.0)
FETCH_HOST_GAPS = env_number_map(
    "AITOP_FETCH_HOST_GAPS",
    {"export.arxiv.org": 3.0, "arxiv.org": 3.0, "rss.arxiv.org": 3.0},
)
# Seconds a source may wait inside a worker's batch for a host that another
# worker holds, or whose gap is running, before it is given back until then.
FETCH_HOST_WAIT = env_float("AITOP_FETCH_HOST_WAIT", 2.0)
# Failures back off exponentially from the base, up to the cap, with jitter.
FETCH_BACKOFF_BASE = env_float("AITOP_FETCH_BACKOFF_BASE", 300.0)  # seconds
FETCH_BACKOFF_MAX = env_float("AITOP_FETCH_BACKOFF_MAX", 86400.0)  # seconds
# A feed's own Retry-After, Cache-Control, Expires or <ttl> is obeyed up to this
# many seconds, so a typo in a header cannot stop a source for years.
FETCH_MAX_DELAY = env_float("AITOP_FETCH_MAX_DELAY", 7 * 86400.0)
# After this many failures in a row a source is flagged as failing in the admin.
FETCH_FAILING_AFTER = env_int("AITOP_FETCH_FAILING_AFTER", 5)
# How long a worker may hold a source (and its host) before another may take it.
FETCH_LEASE_SECONDS = env_float("AITOP_FETCH_LEASE_SECONDS", 300.0)
# Fetches kept per source in its history.
FETCH_HISTORY_KEEP = env_int("AITOP_FETCH_HISTORY_KEEP", 50)
# Seconds the scheduler (`manage.py fetch_scheduler`) waits between two rounds.
FETCH_SCHEDULER_INTERVAL = env_float("AITOP_FETCH_SCHEDULER_INTERVAL", 15.0)
# Fetches one `manage.py fetch_worker` has in flight at once (threads waiting
# on the network), and requests in flight to one host across all workers
# (hosts listed in AITOP_FETCH_HOST_GAPS always get one).
FETCH_CONCURRENCY = env_int("AITOP_FETCH_CONCURRENCY", 16)
FETCH_PER_HOST = env_int("AITOP_FETCH_PER_HOST", 1)
# Due sources a fetch_worker holds at once: claimed together (SKIP LOCKED on
# PostgreSQL, so workers never wait for one another's claims), and more
# claimed as they end.
FETCH_BATCH_SIZE = env_int("AITOP_FETCH_BATCH_SIZE", 100)
# Processes a fetch_worker parses and normalises fetched documents in, so that
# this CPU work runs beside its threads instead of taking turns with them for
# one GIL; 0 reads them in the fetch threads.
FETCH_READERS = env_int("AITOP_FETCH_READERS", 1)
if FETCH_READERS < 0:
    raise ImproperlyConfigured("AITOP_FETCH_READERS must be 0 or more.")
for _name in ("FETCH_CONCURRENCY", "FETCH_PER_HOST", "FETCH_BATCH_SIZE"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"AITOP_{_name} must be at least 1.")


# AI enrichment (enrichment/, docs/enrichment.md): drafts get a headline, a
# summary, a "why", a category and tags. "offline" needs no network; "chat" is
# any OpenAI-compatible chat-completions endpoint.
AITOP_AI_BACKEND = env_str("AITOP_AI_BACKEND", "offline")
AITOP_AI_BASE_URL = env_str("AITOP_AI_BASE_URL", "").rstrip("/")
AITOP_AI_MODEL = env_str("AITOP_AI_MODEL", "")
AITOP_AI_API_KEY = env_str("AITOP_AI_API_KEY", "")
if AITOP_AI_BACKEND not in ("offline", "chat"):
    raise ImproperlyConfigured(
        f"AITOP_AI_BACKEND must be offline or chat, not {AITOP_AI_BACKEND!r}."
    )
if AITOP_AI_BACKEND == "chat" and not (AITOP_AI_BASE_URL and AITOP_AI_MODEL):
    raise ImproperlyConfigured(
        "AITOP_AI_BACKEND=chat needs AITOP_AI_BASE_URL (e.g. https://api.openai.com/v1) "
        "and AITOP_AI_MODEL."
    )
AITOP_AI_TIMEOUT = env_float("AITOP_AI_TIMEOUT", 30.0)  # seconds for one request
AITOP_AI_MAX_RETRIES = env_int("AITOP_AI_MAX_RETRIES", 3)  # after the first try
AITOP_AI_MAX_RETRY_WAIT = env_float("AITOP_AI_MAX_RETRY_WAIT", 60.0)  # longest Retry-After obeyed
AITOP_AI_CONCURRENCY = env_int("AITOP_AI_CONCURRENCY", 2)  # requests in flight per process
AITOP_AI_MAX_OUTPUT_TOKENS = env_int("AITOP_AI_MAX_OUTPUT_TOKENS", 800)
# Tokens (in + out) that may be spent per day in TIME_ZONE; then items wait.
AITOP_AI_DAILY_TOKEN_BUDGET = env_int("AITOP_AI_DAILY_TOKEN_BUDGET", 200_000)
# US dollars per million tokens, for the cost estimate.
AITOP_AI_PRICE_INPUT = env_float("AITOP_AI_PRICE_INPUT", 0.0)
AITOP_AI_PRICE_OUTPUT = env_float("AITOP_AI_PRICE_OUTPUT", 0.0)
# An item whose enrichment failed this many times waits for an editor.
AITOP_AI_MAX_ATTEMPTS = env_int("AITOP_AI_MAX_ATTEMPTS", 3)
# The language headlines, summaries and "why" lines are written in.
AITOP_CONTENT_LANGUAGE = env_str("AITOP_CONTENT_LANGUAGE", "zh-hans")
if AITOP_CONTENT_LANGUAGE not in ("zh-hans", "en"):
    raise ImproperlyConfigured(
        f"AITOP_CONTENT_LANGUAGE must be zh-hans or en, not {AITOP_CONTENT_LANGUAGE!r}."
    )
# Enrich new drafts in the background after each fetch (and items added by hand).
AITOP_ENRICH_ON_INGEST = env_bool("AITOP_ENRICH_ON_INGEST", True)
