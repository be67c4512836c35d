# syntax=docker/dockerfile:1
# Build stage: install with the pinned Bun and compile wagate into one executable.
FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json bun.lock ./
# bun install applies the patches package.json names (CONTRIBUTING.md § "The Baileys patch").
COPY patches ./patches
RUN bun install --frozen-lockfile --production
COPY tsconfig.json ./
COPY src ./src
RUN bun run build

# Run stage: only the executable, as a non-root user, with the data directory as a volume.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 wagate \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin wagate \
 && mkdir -p /data && chown wagate:wagate /data && chmod 0700 /data
COPY --from=build /src/dist/wagate /usr/local/bin/wagate
USER wagate
WORKDIR /data
ENV WAGATE_DATA_DIR=/data \
    WAGATE_HOST=0.0.0.0 \
    WAGATE_PORT=3000
VOLUME /data
EXPOSE 3000
# The shell form reads WAGATE_PORT when the check runs, so `-e WAGATE_PORT=8080` is probed on 8080.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${WAGATE_PORT:-3000}/healthz" || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/wagate"]
CMD ["serve"]
