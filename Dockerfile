# iap-pipeline image: every executable (iap, iap-gateway, iap-intake, iap-verify, iap-match,
# iap-grant) plus pipelines/, one image for all services (docker-compose.yml, deploy/kubernetes).
#
#   docker build -t iap-pipeline:local .
#
# Builder: the official Swift image on Debian bookworm, with the C libraries the system-library
# targets link (librdkafka 2.0.2, hiredis 0.14.1 from Debian). Release build with the Swift
# standard library and Foundation linked statically, so the runtime image needs only the C
# libraries.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        librdkafka-dev libhiredis-dev libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src

# Dependencies first, so source edits do not refetch them. Package.resolved is optional (the
# repository ignores it); the glob copies it when present.
COPY Package.* ./
RUN swift package resolve

# Tests/ is copied because the manifest declares its targets (SwiftPM checks their folders).
# Resource bundles (AppStore's Apple root certificate) are copied next to the executables,
# where the generated Bundle.module looks first.
COPY Sources ./Sources
COPY Tests ./Tests
# iap_build_info{version,revision}: docker build --build-arg IAP_VERSION=1.2.0 --build-arg IAP_REVISION=$(git rev-parse HEAD)
ARG IAP_VERSION=dev
ARG IAP_REVISION=unknown
RUN sed -i -e "s|static let version = \".*\"|static let version = \"${IAP_VERSION}\"|" \
        -e "s|static let revision = \".*\"|static let revision = \"${IAP_REVISION}\"|" Sources/Hosting/Ops/BuildStamp.swift
RUN swift build -c release --static-swift-stdlib \
    && mkdir -p /staging/bin \
    && bin="$(swift build -c release --show-bin-path)" \
    && for product in iap iap-gateway iap-intake iap-verify iap-match iap-grant; do \
         if [ -x "$bin/$product" ]; then cp "$bin/$product" /staging/bin/; else echo "missing executable: $product" >&2; exit 1; fi; \
       done \
    && find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /staging/bin/ \;

FROM ${RUNTIME_IMAGE}
# librdkafka1 (2.0.2) and libhiredis0.14 are the runtime halves of the -dev packages above;
# curl serves the compose healthchecks; ca-certificates for Apple's HTTPS endpoints.
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
