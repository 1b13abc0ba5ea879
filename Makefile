# gardener-webhook: `make run` serves, `make test` tests. Both build .venv from the lock file when missing.
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | cksum | cut -d' ' -f1)
ARGS   ?=

.PHONY: run test lint lock clean bench fuzz soak

$(STAMP): requirements-dev.lock pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --require-hashes --no-deps -r requirements-dev.lock
	$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.installed-*
	touch $@

# Self-signed material goes to ./certs of the checkout (the README's curl examples read certs/ca.crt).
run: $(STAMP)
	GARDENER_WEBHOOK_STATE_DIR=$(CURDIR) $(VENV)/bin/gardener-webhook serve $(ARGS)

test: lint
	$(VENV)/bin/python -m pytest $(ARGS)

# Style, types and import contracts (a few seconds; `make test` runs it first). ruff and mypy read pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check webhook tests bench manifests/monitoring
	$(VENV)/bin/ruff format --check webhook tests bench manifests/monitoring
	$(VENV)/bin/mypy --strict webhook
	$(VENV)/bin/lint-imports

# Only the hypothesis tests (pytest -m hypothesis), with many random examples each (a few minutes).
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(VENV)/bin/python -m pytest -m hypothesis $(ARGS)

# gardener-webhook against a bare aiohttp TLS server, then the in-use check at 10 000 Shoots (under 5 minutes).
bench: $(STAMP)
	$(VENV)/bin/python bench/run.py $(ARGS)
	$(VENV)/bin/python bench/inuse.py

# The README's Reliability figures: peak RSS under concurrent maximal reviews, stalled clients, shutdown time.
soak: $(STAMP)
	$(VENV)/bin/python bench/limits.py $(ARGS)

# Re-pin every dependency (needs pip-tools; the result is committed).
lock:
	$(VENV)/bin/python -m pip install --quiet pip-tools
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --all-build-deps -o requirements.lock pyproject.toml
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --all-build-deps --extra test -o requirements-dev.lock pyproject.toml

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
