# iap-pipeline image: the executables scripts/image-executables lists (the one list, which
# DeploymentEndToEndTests holds compose and Kubernetes to) plus pipelines/, one image for all
# services (docker-compose.yml, deploy/kubernetes): the four workers, iap-reconcile,
# iap-gateway and the operator CLI `iap`. The developer tools (`iap-dev`: the App Store
# simulator, the embedded stack, demo, soak, benchmarks) are not in it: the `dev` stage is the
# same image plus them (`scripts/image-executables --dev`), for the simulator service of
# docker-compose.yml and of the simulator overlay (decision D46).
#
#   docker build -t iap-pipeline:local .                           # production (the last stage)
#   docker build --target dev -t iap-pipeline-dev:local .          # plus iap-dev
#
# Builder: the official Swift image on Debian bookworm, with the C libraries the system-library
# targets link (librdkafka 2.0.2, hiredis 0.14.1 from Debian). Release build with the Swift
# standard library and Foundation linked statically, so the runtime image needs only the C
# libraries. Both base images are pinned to a version: a rebuild gets the same toolchain and the
# same Debian point release (librdkafka 2.0.2 and hiredis 0.14.1 on both sides).

ARG SWIFT_IMAGE=swift:6.3.1-bookworm
ARG RUNTIME_IMAGE=debian:12.13-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        librdkafka-dev libhiredis-dev libssl-dev pkg-config jq \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src

# Dependencies first, so source edits do not refetch them. Package.resolved is optional (the
# repository ignores it); the glob copies it when present.
COPY Package.* ./
COPY scripts/image-executables ./scripts/
RUN swift package resolve

# Tests/ is copied because the manifest declares its targets (SwiftPM checks their folders).
# Resource bundles (AppStore's Apple root certificate) are copied next to the executables,
# where the generated Bundle.module looks first. The executables lose their DWARF (`strip
# --strip-debug`: 198 MB to 124 MB each, 63 to 40 MB gzipped), which nothing in the runtime image
# reads (it has no Swift toolchain or backtracer); their symbol tables stay, so a native stack
# still names its functions.
COPY Sources ./Sources
COPY Tests ./Tests
# iap_build_info{revision} and `--version`: docker build --build-arg IAP_REVISION=$(git rev-parse HEAD) .
# (the version is the project's, BuildStamp.version, the same from a checkout)
ARG IAP_REVISION=unknown
RUN sed -i -e "s|static let revision = \".*\"|static let revision = \"${IAP_REVISION}\"|" Sources/Hosting/Ops/BuildStamp.swift
RUN swift build -c release --static-swift-stdlib \
    && mkdir -p /staging/bin /staging/dev-bin \
    && bin="$(swift build -c release --show-bin-path)" \
    && products="$(scripts/image-executables)" \
    && developer_tools="$(scripts/image-executables --dev)" \
    && test -n "$products" && test -n "$developer_tools" \
    && for product in $products; do \
         if [ -x "$bin/$product" ]; then strip --strip-debug -o "/staging/bin/$product" "$bin/$product"; else echo "missing executable: $product" >&2; exit 1; fi; \
       done \
    && for product in $developer_tools; do \
         if [ -x "$bin/$product" ]; then strip --strip-debug -o "/staging/dev-bin/$product" "$bin/$product"; else echo "missing executable: $product" >&2; exit 1; fi; \
       done \
    && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /staging/bin/ \;

FROM ${RUNTIME_IMAGE} AS runtime
# librdkafka1 (2.0.2) and libhiredis0.14 are the runtime halves of the -dev packages above;
# curl serves the compose healthchecks; ca-certificates for Apple's HTTPS endpoints and a managed
# Kafka's TLS (librdkafka reads the system store when IAP_KAFKA_SSL_CA_LOCATION is unset).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        librdkafka1 libhiredis0.14 libssl3 libstdc++6 ca-certificates curl tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app iap \
    && mkdir -p /var/lib/iap-sim && chown 10001:10001 /var/lib/iap-sim
WORKDIR /app
COPY --from=build /staging/bin/ /usr/local/bin/
COPY pipelines ./pipelines
# /var/lib/iap-sim: the simulator's state (CA, root.pem, AuthKey.p8). Owned by the runtime user,
# so a fresh named volume mounted there (docker-compose.yml's apple-credentials) is writable.
USER 10001
# Notification listener (iap-gateway) and the ops port every process serves.
EXPOSE 8080 9100
# No ENTRYPOINT: each service names its executable (command: ["iap-intake", ...]).
CMD ["iap", "--help"]

# The production image plus the developer tools (`iap-dev`): what compose's `apple` service and
# the simulator overlay run (`iap-dev sim`). Nothing else runs it.
FROM runtime AS dev
COPY --from=build /staging/dev-bin/ /usr/local/bin/

# The production image, the last stage, so a plain `docker build .` builds it.
FROM runtime AS production
