# mailbot's container image: a static binary on a distroless, non-root base.
#
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse --short HEAD) \
#     --build-arg CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ) -t mailbot .
#   docker run --rm --env-file mailbot.env -p 8080:8080 mailbot
#
# The go build line below is the one .ci/run runs (CI builds with the same
# flags on every push; manifests/manifests_docker_test.go checks that the two stay identical),
# so CI exercises this stage without a Docker engine. It needs BuildKit, the
# default builder since Docker 23, for $BUILDPLATFORM and $TARGETARCH: the
# build runs natively and cross-compiles, so a multi-platform build
# (docker buildx build --platform linux/amd64,linux/arm64) needs no emulation.

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src

# Modules first: this layer is rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
ARG TARGETOS TARGETARCH
ARG VERSION=devel
ARG COMMIT=unknown
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/mailbot .
# An empty directory for the sandbox image below, owned there by nonroot.
RUN mkdir /out/sandbox

# The sandbox image that compose.yaml runs (docker build --target sandbox):
# the same binary on distroless's debug variant, whose busybox shell
# (/busybox/sh) lets `mailbot sim` write its variables to a file in
# /run/sandbox and the bot read them at start. For a local stack only; the
# release image is the last stage, without a shell.
FROM gcr.io/distroless/static-debian13:debug-nonroot AS sandbox
COPY --from=build /out/mailbot /mailbot
COPY --from=build --chown=65532:65532 /out/sandbox /run/sandbox
USER 65532:65532
ENTRYPOINT ["/mailbot"]
CMD ["sim"]

# static-debian13:nonroot holds CA certificates, tzdata and /etc/passwd with
# the user nonroot (uid 65532), and no shell or package manager. Pin it by
# digest (…:nonroot@sha256:…) in a release pipeline.
FROM gcr.io/distroless/static-debian13:nonroot
# The OCI annotations (https://specs.opencontainers.org/image-spec/annotations/),
# from the build args: the release, the commit (as `mailbot version` shows
# it) and the build time in RFC 3339 (date -u +%Y-%m-%dT%H:%M:%SZ).
ARG VERSION=devel
ARG COMMIT=unknown
ARG CREATED=
LABEL org.opencontainers.image.title="mailbot" \
      org.opencontainers.image.description="Slack chat-ops bot for mail-hosting providers' admin APIs" \
      org.opencontainers.image.source="https://github.com/mailbot/mailbot" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.created="${CREATED}"
COPY --from=build /out/mailbot /mailbot
# Numeric, the image's user nonroot: the kubelet can verify runAsNonRoot
# only for a numeric user, and the Deployment's runAsUser is the same.
USER 65532:65532
# The health and metrics listener (MAILBOT_HTTP_ADDR, default :8080). Slack
# needs no inbound port: Socket Mode dials out.
EXPOSE 8080
ENTRYPOINT ["/mailbot"]
CMD ["serve"]
