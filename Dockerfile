# mailbot's container image: a static binary on a distroless, non-root base.
#
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse --short HEAD) -t mailbot .
#   docker run --rm --env-file mailbot.env -p 8080:8080 mailbot
#
# The go build line below is the one .ci/run runs (CI builds with the same
# flags on every push; manifests_test.go checks that the two stay identical),
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

# static-debian13:nonroot holds CA certificates, tzdata and /etc/passwd with
# the user nonroot (uid 65532), and no shell or package manager. Pin it by
# digest (…:nonroot@sha256:…) in a release pipeline.
FROM gcr.io/distroless/static-debian13:nonroot
ARG VERSION=devel
ARG COMMIT=unknown
LABEL org.opencontainers.image.title="mailbot" \
      org.opencontainers.image.description="Slack chat-ops bot for the PDD mail-hosting API" \
      org.opencontainers.image.source="https://github.com/mailbot/mailbot" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
COPY --from=build /out/mailbot /mailbot
USER nonroot:nonroot
# The health and metrics listener (MAILBOT_HTTP_ADDR, default :8080). Slack
# needs no inbound port: Socket Mode dials out.
EXPOSE 8080
ENTRYPOINT ["/mailbot"]
CMD ["serve"]
