# Every target installs what it needs into .venv first, so a fresh clone works.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# The suite starts many Python processes (test workers, API servers, RQ workers, killed and
# started again): each would compile the project's modules anew without their bytecode.
# `--dist loadgroup` with no test grouped hands the tests out one at a time, in turn, so
# the browser and fault tests (which mostly wait) spread over the processes; `--dist load`
# hands out long runs of consecutive tests and left them to one or two processes.
TEST_ENV := PYTHONDONTWRITEBYTECODE=

.PHONY: install serve serve-cluster test test-fast worker bench openapi docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

serve: $(STAMP)  ## API on http://$(HOST):$(PORT); embedded fakeredis unless REDIS_URL is set
	$(BIN)/python -m service.serve --host $(HOST) --port $(PORT)

CHROMIUM := /usr/bin/chromium

# DejaVu draws the card suits in the reference client (and its screenshots).
$(CHROMIUM):  ## Debian's chromium for tests/browser (Playwright drives it; nothing is downloaded)
	@command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
	  || { echo "make: tests/browser needs chromium: apt-get install -y chromium (as root)"; exit 0; }
	apt-get install -y --no-install-recommends chromium fonts-dejavu-core >/dev/null \
	  || { apt-get update >/dev/null \
	       && apt-get install -y --no-install-recommends chromium fonts-dejavu-core >/dev/null; }

test: $(STAMP) $(CHROMIUM)  ## lint, then the whole suite, on fakeredis, on real Redis and on a 3-master Redis Cluster
	$(BIN)/ruff check domain service workers tests bench
	$(BIN)/mypy domain service workers
	$(BIN)/lint-imports
	$(TEST_ENV) RUMMY_TEST_BACKENDS=fakeredis,real_redis,cluster \
	  $(BIN)/python -m pytest -n 4 --dist loadgroup

test-fast: $(STAMP)  ## the edit-test loop: domain, use cases and the store contract on fakeredis
	$(TEST_ENV) $(BIN)/python -m pytest -m "(domain or usecases or contract or workers) and not real_redis and not cluster and not slow" -n 2 -q

serve-cluster: $(STAMP)  ## 3 cluster masters + a job Redis (redis-server, temp dir), the API under gunicorn and a worker; Ctrl-C stops all
	$(BIN)/python -m service.serve_cluster --host $(HOST) --port $(PORT)

worker: $(STAMP)  ## one worker process for real mode (needs REDIS_URL; RQ_REDIS_URL for the jobs, default REDIS_URL); run it under a supervisor
	$(BIN)/python -m workers --url "$${REDIS_URL:?set REDIS_URL}" --rq-url "$${RQ_REDIS_URL:-$$REDIS_URL}"

bench: $(BENCH_STAMP)  ## solver and playouts beside OpenSpiel; bench/api.py needs a running server (docs/benchmarks.md)
	$(BIN)/python bench/solver.py --random 2000
	$(BIN)/python bench/solver.py --variant gem --random 2000
	$(BIN)/python bench/playouts.py

openapi: $(STAMP)  ## regenerate openapi.yaml from the schemas
	$(BIN)/flask --app "service.api.app:create_app" openapi write --format yaml openapi.yaml

docs: $(STAMP)  ## regenerate docs/events.md from the event registry
	$(BIN)/python -m domain.event_registry --markdown > docs/events.md

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
