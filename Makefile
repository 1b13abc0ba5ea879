# gardener-webhook: `make run` serves, `make test` tests. Both build .venv from the lock file when missing.
PYTHON ?= python3
VENV   := .venv
STAMP  := $(VENV)/.installed-$(shell cat requirements-dev.lock pyproject.toml | cksum | cut -d' ' -f1)
ARGS   ?=

.PHONY: run test lint lock clean bench fuzz soak e2e e2e-tools e2e-env image docs docs-serve

# Two targets started together in a fresh clone (`make run` and `make test`) both find the stamp missing and would
# both create .venv ("[Errno 17] File exists"). The build holds an exclusive lock on .venv.lock (flock(1), util-linux;
# the kernel releases it when its holder dies, so no lock is ever left stale); whoever waited for it finds the stamp
# made and builds nothing. The recipe is one shell so that the lock spans every step.
$(STAMP): requirements-dev.lock pyproject.toml
	@exec 9>$(VENV).lock; \
	if command -v flock >/dev/null; then flock 9; else echo "flock not found: building $(VENV) without a lock"; fi; \
	if [ -e $@ ]; then echo "$(VENV): built meanwhile by another make"; exit 0; fi; \
	set -ex; \
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV); \
	$(VENV)/bin/python -m pip install --quiet --require-hashes --no-deps -r requirements-dev.lock; \
	$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .; \
	rm -f $(VENV)/.installed-*; \
	touch $@

# Self-signed material goes to ./certs of the checkout (the documentation's curl examples read certs/ca.crt).
# `exec`: the server replaces the recipe's shell, so it is make's one child. GNU make passes a SIGTERM it receives on
# to its children and exits only once they have, so `kill <pid of make run>` drains and stops the server, and make is
# gone when the server is; Ctrl-C reaches both (one process group). Without the exec, the shell took the SIGTERM and
# the server ran on as an orphan. Make itself stays in between (it never execs a recipe): whatever must signal the
# server's own PID, or may SIGKILL it, runs .venv/bin/gardener-webhook serve without make.
run: $(STAMP)
	exec env GARDENER_WEBHOOK_STATE_DIR=$(CURDIR) $(VENV)/bin/gardener-webhook serve $(ARGS)

test: lint
	$(VENV)/bin/python -m pytest --ignore=tests/e2e $(ARGS)

# The e2e tier (docs/e2e.md): the webhook against the real etcd, kube-apiserver, kubectl and gardener-apiserver of
# tools/e2e/components.toml, built with this machine's Go from the module proxy into ~/.cache/gardener-webhook/e2e
# (GARDENER_WEBHOOK_E2E_CACHE). The first build takes about 20 minutes and 6 GiB; later ones only check --version.
# `-s`: the differential prints its agreement table.
e2e-tools:
	$(PYTHON) tools/e2e/components.py build

# Starts the environment for a person: prints the kubeconfig's path; Ctrl-C stops it.
e2e-env: e2e-tools $(STAMP)
	$(VENV)/bin/python -m tests.e2e.environment

e2e: $(STAMP)
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory e2e-tools && $(VENV)/bin/python -m pytest -s tests/e2e $(ARGS); \
	status=$$?; echo "make e2e: $$(( $$(date +%s) - start )) s (exit $$status)"; exit $$status

# The container image (tools/image/build.py): buildah builds the Dockerfile on a base made from Debian's packages
# with mmdebstrap (no registry is reachable to pull python:3.11-slim), as localhost/gardener-webhook:<version>; it
# prints the build time, the size and what the image holds that a running webhook does not need. tests/test_containers.py
# runs every manifest's containers from this image when it is current.
image:
	$(PYTHON) tools/image/build.py $(ARGS)

# The documentation site (mkdocs.yml, docs/): built with --strict, so a broken link or anchor fails, into site/;
# docs-serve serves it on http://127.0.0.1:8000/gardener-webhook/ (the path of site_url) and rebuilds on every
# change. `make test` builds it too (tests/test_site.py) and opens every page in headless Chromium where installed.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict --dev-addr 127.0.0.1:8000

# Style, types and import contracts (a few seconds; `make test` runs it first). ruff and mypy read pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check webhook tests bench tools/e2e tools/image tools/docs manifests/monitoring
	$(VENV)/bin/ruff format --check webhook tests bench tools/e2e tools/image tools/docs manifests/monitoring
	$(VENV)/bin/mypy --strict webhook
	$(VENV)/bin/lint-imports

# Only the hypothesis tests (pytest -m hypothesis), with many random examples each (a few minutes).
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(VENV)/bin/python -m pytest -m hypothesis $(ARGS)

# gardener-webhook against a bare aiohttp TLS server, the in-use check at 20 000 Shoots, then `review` on 20
# landscape-sized CloudProfiles and 1 000 Shoots (under 6 minutes).
bench: $(STAMP)
	$(VENV)/bin/python bench/run.py $(ARGS)
	$(VENV)/bin/python bench/inuse.py
	$(VENV)/bin/python bench/review.py

# The figures of docs/operations/reliability.md: peak RSS under concurrent maximal reviews, stalled clients, shutdown time.
soak: $(STAMP)
	$(VENV)/bin/python bench/limits.py $(ARGS)

# Re-pin every dependency (needs pip-tools; the result is committed).
lock:
	$(VENV)/bin/python -m pip install --quiet pip-tools
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --all-build-deps -o requirements.lock pyproject.toml
	$(VENV)/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --all-build-deps --extra test --extra docs -o requirements-dev.lock pyproject.toml

clean:
	rm -rf $(VENV) $(VENV).lock .pytest_cache .mypy_cache .ruff_cache
