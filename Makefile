# AITOP: `make run` serves the site, `make test` runs the checks. Both set up
# .venv (Python 3.13) and the database first, on a fresh clone as on an old one.

PYTHON ?= $(shell command -v python3.13 2>/dev/null || echo python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Management commands run by these targets are for development: DEBUG on
# unless the caller says otherwise.
MANAGE := DEBUG=$${DEBUG:-1} $(BIN)/python manage.py

.PHONY: run test setup worker scheduler bench bench-site bench-ingest bench-api bench-explain lint format messages clean system-check

# `make run PORT=8001` for another port.
PORT ?= 8000

run: setup
	$(MANAGE) load_demo
	$(MANAGE) runserver 127.0.0.1:$(PORT)

test: setup system-check
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# One background worker for fetches, webhooks and other tasks.
worker: setup
	$(MANAGE) db_worker

# Queues a fetch for every source that is due, every few seconds (for the workers).
scheduler: setup
	$(MANAGE) fetch_scheduler

setup: $(INSTALLED)
	$(MANAGE) compilemessages --ignore=$(VENV) --verbosity=0
	$(MANAGE) migrate --noinput --verbosity=1

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 13) else "AITOP needs Python 3.13; set PYTHON=/path/to/python3.13")'
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(INSTALLED)

# Benchmarks (README: "Benchmarks"; docs/benchmarks.md). The site benchmark runs on
# a PostgreSQL database of its own, created and seeded with BENCH_ITEMS items if
# empty; BENCH_SITE_ARGS passes options to bench/site.py, BENCH_ARGS to bench-ingest.
BENCH_ITEMS ?= 10000
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/aitop_bench_$(BENCH_ITEMS)
BENCH_SITE := $(BIN)/python bench/site.py --database-url $(BENCH_DATABASE_URL) --items $(BENCH_ITEMS)

bench: bench-site bench-ingest

# Every public page and the API under wrk, against the hello-world ceiling, in three states.
bench-site: setup
	$(BENCH_SITE) $(BENCH_SITE_ARGS)

# A 10,000-entry feed; 1,000 sources on 50 loopback hosts and the shared corpus,
# fetched by 1 and 2 fetch_workers beside newsboat (Debian package) in turns.
# On a new SQLite file unless BENCH_ARGS="--database-url postgres://…/a_spare_db".
bench-ingest: setup
	$(BIN)/python bench/ingest.py $(BENCH_ARGS)

# Only the API's item list (and the ceiling).
bench-api: setup
	$(BENCH_SITE) --only api $(BENCH_SITE_ARGS)

# EXPLAIN ANALYZE of every query of the public pages (run bench-site first, to seed).
bench-explain: setup
	$(BIN)/python bench/explain.py --database-url $(BENCH_DATABASE_URL)

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(INSTALLED)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Refresh the .po files after changing user-facing strings.
messages: $(INSTALLED)
	$(MANAGE) makemessages --locale=zh_Hans --locale=en --ignore=$(VENV) --ignore=test-artifacts --no-obsolete

clean:
	rm -rf $(VENV) staticfiles

# The Debian packages the pages and the tests need (README, "Set-up"): one
# message naming every missing one, before a test fails for want of it.
system-check:
	@missing=""; \
	[ -x "$${AITOP_CHROMIUM:-/usr/bin/chromium}" ] || missing="$$missing chromium"; \
	command -v msgfmt >/dev/null || missing="$$missing gettext"; \
	fc-list 2>/dev/null | grep -qi "WenQuanYi\|Noto Sans CJK" || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
		echo "make test needs these system packages:$$missing"; \
		echo "install them with: apt-get update && apt-get install -y$$missing"; \
		exit 1; \
	fi
