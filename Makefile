# Every command a person or CI runs. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# The cargo target dir lives outside the clone so that fresh clones (CI) reuse earlier builds; nothing
# depends on it being there.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/devportal/target
CARGO ?= cargo
NPM ?= npm
FRONTEND := frontend
NODE_STAMP := $(FRONTEND)/node_modules/.installed-stamp
E2E := tests/e2e
E2E_STAMP := $(E2E)/node_modules/.installed-stamp
BENCH_STAMP := bench/node_modules/.installed-stamp
# Crates that must never be reachable from the domain (ARCHITECTURE.md rule 1).
IO_CRATES := diesel actix-web actix-http reqwest lettre tokio sqlx hyper mio

.PHONY: deb test-deb test-proxy test-pgbouncer schemathesis bench bench-short run build frontend server cli test test-rust test-frontend test-e2e lint fmt check-deps schema-check api-types check-api-types clean help

help:
	@echo "make run        build everything and start the portal on http://127.0.0.1:8080 (SQLite)"
	@echo "make test       every test of the repository"
	@echo "make cli        build the command-line client: \$$CARGO_TARGET_DIR/release/devportal"
	@echo "make test-e2e   browser journeys (Chromium) and auth-js flows against a real server, SMTP and OIDC provider"
	@echo "make lint       rustfmt, clippy -D warnings, eslint, tsc, prettier"
	@echo "make check-deps prove the domain crate reaches no I/O crate and its contexts keep their floors"
	@echo "make schemathesis check the served OpenAPI document against the server's answers (Schemathesis)"
	@echo "make test-pgbouncer two instances behind PgBouncer in transaction mode (part of make test's Rust tests)"
	@echo "make schema-check verify adapters/db/src/schema.rs against fresh SQLite and PostgreSQL databases"
	@echo "make bench      build in release mode and measure the figures of docs/benchmarks.md (target/bench/report.md)"
	@echo "make api-types  regenerate frontend/src/api/schema.gen.ts from the server's OpenAPI document"
	@echo "make deb        build the Debian package (release build): target/debian/devportal_<version>_amd64.deb"

$(NODE_STAMP): $(FRONTEND)/package.json $(FRONTEND)/package-lock.json
	cd $(FRONTEND) && $(NPM) ci --no-audit --no-fund
	touch $@

frontend: $(NODE_STAMP)
	cd $(FRONTEND) && $(NPM) run build

server:
	$(CARGO) build --release -p app-server

# The command-line client: $(CARGO_TARGET_DIR)/release/devportal (README "Command-line client").
cli:
	$(CARGO) build --release -p devportal-cli

build: frontend server cli

run: build
	PORTAL_FRONTEND_DIR=$${PORTAL_FRONTEND_DIR:-$(FRONTEND)/dist} $(CARGO_TARGET_DIR)/release/app-server serve

test: test-rust test-frontend check-api-types test-e2e test-deb test-proxy schemathesis bench-short check-deps

# The Debian package: the release binaries, the built web UI, the systemd units and the settings file
# (README "Running it as a service").
DEB_DIR := target/debian
deb: frontend
	$(CARGO) build --release -p app-server -p devportal-cli
	scripts/deb.sh $(CARGO_TARGET_DIR)/release $(FRONTEND)/dist $(DEB_DIR)

# The same package built from the debug binary (a release build would add many minutes on 2 cores), then
# checked by scripts/check-deb.sh: contents, maintainer scripts, systemd-analyze verify and security, the
# installed binary started from its installed paths, and a real install, removal and purge when root.
test-deb: $(NODE_STAMP)
	scripts/test-tools.sh --deb
	test -f $(FRONTEND)/dist/index.html || (cd $(FRONTEND) && $(NPM) run build)
	$(CARGO) build -p app-server
	work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	  cp $(CARGO_TARGET_DIR)/debug/app-server "$$work/" && \
	  deb=$$(DEB_COMPRESSION=gzip scripts/deb.sh "$$work" $(FRONTEND)/dist "$$work/out") && \
	  scripts/check-deb.sh "$$deb"

# Debian's nginx with packaging/proxy/nginx.conf (README "Behind a reverse proxy") in front of the debug build.
test-proxy: $(NODE_STAMP)
	scripts/test-tools.sh --proxy
	test -f $(FRONTEND)/dist/index.html || (cd $(FRONTEND) && $(NPM) run build)
	$(CARGO) build -p app-server
	work=$$(mktemp -d) && trap 'rm -rf "$$work"' EXIT && \
	  cp $(CARGO_TARGET_DIR)/debug/app-server "$$work/" && \
	  scripts/check-proxy.sh "$$work/app-server" $(FRONTEND)/dist

# Rust tests run against a real PostgreSQL too (the machine's, or a throwaway cluster the script starts),
# and through Debian's PgBouncer in transaction mode (each test runs its own; README "Behind a connection
# pooler"). The webhook tests verify deliveries with the `standardwebhooks` npm package of tests/e2e.
test-rust: $(E2E_STAMP)
	scripts/test-tools.sh --pgbouncer
	scripts/with-postgres.sh $(CARGO) test --workspace --all-targets --no-fail-fast 2>&1 | tee target-test.log
	@echo "contract tests on SQLite:     $$(grep -cE '^test .*::sqlite \.\.\. ok$$' target-test.log)"
	@echo "contract tests on PostgreSQL: $$(grep -cE '^test .*::postgres \.\.\. ok$$' target-test.log)"
	@rm -f target-test.log
	$(CARGO) test --workspace --doc

# Only the tests behind PgBouncer (test-rust runs them too): two instances walking the API and seeing each
# other's sign-out at once, with the session cache listening directly and through the pooler, and the kill -9
# test.
test-pgbouncer:
	scripts/test-tools.sh --pgbouncer
	scripts/with-postgres.sh $(CARGO) test -p api-tests --test api pgbouncer::
	scripts/with-postgres.sh $(CARGO) test -p app-server --test crash behind_pgbouncer

# Migrates fresh SQLite and PostgreSQL databases and checks adapters/db/src/schema.rs against both.
schema-check:
	scripts/with-postgres.sh $(CARGO) test -p adapter-db --test schema_check -- --nocapture

$(E2E_STAMP): $(E2E)/package.json $(E2E)/package-lock.json
	cd $(E2E) && $(NPM) ci --no-audit --no-fund
	touch $@

# Browser journeys in Debian's Chromium and identity flows with @supabase/auth-js (tests/e2e/flows), against the
# real server (debug build) sending real e-mail (aiosmtpd) and signing in through a local OIDC provider.
test-e2e: $(NODE_STAMP) $(E2E_STAMP)
	scripts/test-tools.sh --browser
	cd $(FRONTEND) && $(NPM) run build
	$(CARGO) build -p app-server
	cd $(E2E) && APP_SERVER=$${APP_SERVER:-$(CARGO_TARGET_DIR)/debug/app-server} $(NPM) test

# The served OpenAPI document against the server's real answers (Schemathesis, on the debug build that
# test-e2e made).
schemathesis:
	$(CARGO) build -p app-server
	scripts/schemathesis.sh $(CARGO_TARGET_DIR)/debug/app-server

# The frontend's API types come from the server's OpenAPI document; `make test` fails when they are stale.
api-types: $(NODE_STAMP)
	scripts/api-types.sh

check-api-types: $(NODE_STAMP)
	scripts/api-types.sh --check

$(BENCH_STAMP): bench/package.json bench/package-lock.json
	cd bench && $(NPM) ci --no-audit --no-fund
	touch $@

# The figures next to their targets, measured on the release build (target/bench/report.md and .json).
# SOAK_MINUTES sets how long the soak (200 req/s of mixed traffic, per database) runs: 3 minutes unless set.
SOAK_MINUTES ?= 3
bench: $(NODE_STAMP) $(BENCH_STAMP)
	scripts/test-tools.sh --browser --bench
	cd $(FRONTEND) && $(NPM) run build
	$(CARGO) build --release -p app-server -p reference-actix
	node bench/run.mjs --soak-minutes $(SOAK_MINUTES)

# The same harness with fewer repetitions, on the debug build that test-e2e made: it must keep working.
bench-short: $(NODE_STAMP) $(BENCH_STAMP)
	scripts/test-tools.sh --browser --bench
	test -f $(FRONTEND)/dist/.vite/manifest.json || (cd $(FRONTEND) && $(NPM) run build)
	$(CARGO) build -p app-server -p reference-actix
	node bench/run.mjs --short --server $(CARGO_TARGET_DIR)/debug/app-server

test-frontend: $(NODE_STAMP)
	cd $(FRONTEND) && $(NPM) test

lint: $(NODE_STAMP)
	scripts/domain-floors.py
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	cd $(FRONTEND) && $(NPM) run lint && $(NPM) run typecheck && $(NPM) run format:check

fmt: $(NODE_STAMP)
	$(CARGO) fmt --all
	cd $(FRONTEND) && $(NPM) run format

# The domain reaches no I/O crate, and its contexts stand on floors: none names one above it, no two name
# each other, no file cycle (scripts/domain-floors.py, with no list of exceptions).
check-deps:
	CARGO=$(CARGO) scripts/check-deps.sh $(IO_CRATES)
	scripts/domain-floors.py

clean:
	$(CARGO) clean
	rm -rf $(FRONTEND)/dist $(FRONTEND)/node_modules
