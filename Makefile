# iap-pipeline — the two commands a newcomer runs are `make demo` and `make test`.
# Both install what they need first (Debian packages, then `swift build`).

SWIFT        ?= swift
CONFIG       ?= debug
APT_PACKAGES := librdkafka-dev libhiredis-dev libssl-dev redis-server pkg-config kcat openssl prometheus jq
# Validators the tests run: the Compose spec's schema, Kubernetes' schemas, docs/schemas
PIP_PACKAGES := check-jsonschema kubernetes-validate schemathesis
# What the Python example (examples/python, run by the end-to-end tests) needs, pinned
PYTHON_EXAMPLE_REQUIREMENTS := examples/python/requirements.txt
# Python libraries the Swift tests run (Apple's app-store-server-library), pinned
PYTHON_TEST_REQUIREMENTS := Tests/python-requirements.txt
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Seconds per fuzz target: `make fuzz` (on demand) and the bounded run of `make fuzz-smoke`
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 20

.PHONY: setup build test e2e ci format format-check deploy-check fuzz fuzz-smoke soak demo bench bench-compare clean

## setup: install the C libraries, redis-server, kcat and promtool from Debian, the validators
## from PyPI (each skipped when present), the Python example's and the tests' Python libraries (pip skips them
## when satisfied)
setup:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@missing=""; for p in $(PIP_PACKAGES); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing from PyPI:$$missing"; python3 -m pip install -q $$missing; \
	  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi; fi
	python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r $(PYTHON_EXAMPLE_REQUIREMENTS) \
	  -r $(PYTHON_TEST_REQUIREMENTS)

## build: compile every module and executable
build: setup
	$(SWIFT) build -c $(CONFIG)

## test: the fast tier: the format check (scripts/format-check) and the deployment files' check
## (scripts/deploy-check, seconds), the debug build, then every unit and integration test (mock
## Kafka cluster, a real redis-server started by the tests, the fuzz corpora replayed) and the
## pipeline's scenarios with its members in process (decision D47), in a test process of their
## own; see README "Development" for what each tier proves
test: setup
	SWIFT=$(SWIFT) scripts/format-check
	scripts/deploy-check
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip EndToEndTests --skip ScenarioTests --skip SupportToolsTests
	$(SWIFT) test --skip-build --filter 'ScenarioTests|SupportToolsTests'

## e2e: the process tier: the workers, gateway and reconcile as processes (kill -9, SIGTERM
## drains, Redis loss, broker outages, the deployment boots, the Python example, a short soak).
## Run on their own: they open thousands of loopback connections, and a mock broker that a
## fault test brings back up aborts if another socket took its port meanwhile (decision D13)
e2e: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter EndToEndTests

## ci: every tier, as .ci/run runs them
ci: test e2e fuzz-smoke

## format: rewrite Sources, Tests, Fuzz and Package.swift as .swift-format says (swift-format ships with the toolchain)
format:
	$(SWIFT) format -i --configuration .swift-format -r Sources Tests Fuzz/Checks Fuzz/Sources Fuzz/Package.swift Package.swift

## format-check: fail on any swift-format lint finding (part of `make test`)
format-check:
	SWIFT=$(SWIFT) scripts/format-check

## deploy-check: every kustomization under deploy/ rendered by `kubectl kustomize` and accepted by
## `kubernetes-validate --strict` (part of `make test`, and of DeploymentEndToEndTests)
deploy-check: setup
	scripts/deploy-check

## fuzz-smoke: the libFuzzer targets for FUZZ_SMOKE_SECONDS each (Fuzz/README.md): the sanitizer
## build of the graph, then new inputs; `make test` replays the committed corpora without it
fuzz-smoke: setup
	SWIFT=$(SWIFT) Fuzz/run $(FUZZ_SMOKE_SECONDS)

## fuzz: the libFuzzer targets for FUZZ_SECONDS each (default 600), e.g. `make fuzz FUZZ_SECONDS=3600`
fuzz: setup
	SWIFT=$(SWIFT) Fuzz/run $(FUZZ_SECONDS)

## soak: 10,000 purchases through the embedded stack with every fault on, then a backlog of 5,000
## bare ids under a 40/s Apple budget with half of Apple's answers faults (429s among them) for
## 50 s (docs/reliability.md); exits non-zero on any loss, double grant, dead letter, early Apple
## call, death or stuck offset
soak: build
	$(SWIFT) run -c $(CONFIG) iap-dev soak --purchases 10000 --rate 100 --all-faults --drain-timeout 600
	$(SWIFT) run -c $(CONFIG) iap-dev soak --purchases 1200 --backlog 5000 --rate-limit 40 --apple-faults 0.5 \
	  --apple-faults-for 50 --drain-timeout 900

## demo: the whole pipeline on the embedded stack; exits 0 when every purchase reached its end state
demo: build
	$(SWIFT) run -c $(CONFIG) iap-dev demo

## bench: throughput benchmarks (release build); figures go to docs/performance.md
bench: setup
	$(SWIFT) build -c release
	.build/release/iap-dev bench consume --messages 1000000
	.build/release/iap-dev bench stage --messages 200000
	.build/release/iap-dev bench jws
	.build/release/iap-dev bench e2e --purchases 30000
	.build/release/iap-dev bench e2e --purchases 6000 --rate 500
	.build/release/iap-dev bench e2e --purchases 20000 --bare-ids --apple-latency 200 --verify-only

## bench-compare: this build against BASE side by side (release builds, alternating rounds): make bench-compare BASE=46ff1ae
## [BENCH=e2e|stage|consume]
bench-compare: setup
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<commit> [BENCH=e2e|stage|consume] [ROUNDS=3] [PURCHASES=20000]"; exit 2; }
	SWIFT=$(SWIFT) scripts/bench-compare "$(BASE)"

clean:
	rm -rf .build Fuzz/.build
