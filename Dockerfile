# syntax=docker/dockerfile:1
# ir21-server as a container image (docs/operations.md "Container").
#
#   docker build -t ir21 .
#   docker run --rm -p 8787:8787 -v ir21-data:/data \
#     -e SESSION_SECRET=… -e OTP_PEPPER=… -e PUBLIC_ORIGIN=https://console.example.com ir21
#
# Two stages: `build` installs the workspace from the lockfile and builds the web console and the server
# bundle, then `pnpm deploy` copies the server with its production dependencies alone; the runtime stage
# is that copy on a slim Node image, run as an unprivileged user with its data in the /data volume.
# Both bases are build arguments (CI builds on a Debian base made locally; tests/container/check.ts).

# The build stage needs a compiler for better-sqlite3 when no prebuilt addon can be downloaded, which
# the full (non-slim) Node images have.
ARG BUILD_BASE=node:22-bookworm
ARG BASE=node:22-bookworm-slim

FROM ${BUILD_BASE} AS build
ARG PNPM_VERSION=10.34.8
# Recorded in the bundle and shown by `ir21-server --version` and /healthz (the build has no .git).
ARG IR21_COMMIT=
# npm_config_nodedir: node-gyp compiles better-sqlite3 (when no prebuilt addon can be downloaded)
# against the headers installed with Node instead of downloading them.
ENV CI=true \
    IR21_COMMIT=${IR21_COMMIT} \
    npm_config_nodedir=/usr/local
RUN npm install --global --no-fund --no-audit pnpm@${PNPM_VERSION}
WORKDIR /src
# The manifests and the lockfile first: with layer caching, the install below is redone only when they change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY patches/ patches/
COPY server/package.json server/
COPY sdk/package.json sdk/
COPY cli/package.json cli/
COPY web/package.json web/
COPY tests/package.json tests/
# A mirror of better-sqlite3's prebuilt addons for builds that cannot reach GitHub, where prebuild-install
# fetches them (its npm_config_<package>_binary_host); without one either, node-gyp compiles the addon.
ARG npm_config_better_sqlite3_binary_host
# Only what the server and the console need to build (the CLI and the tests' tools are not installed).
# Scripts off, then the one native addon built: the workspace's own `prepare` would build every package.
# pnpm's store is a cache mount, kept between builds (BuildKit, buildah), and so needed by the deploy too.
RUN --mount=type=cache,id=ir21-pnpm-store,target=/pnpm-store \
    pnpm install --frozen-lockfile --ignore-scripts --store-dir /pnpm-store --filter "@ir21/server..." --filter "@ir21/web..." \
 && pnpm --filter @ir21/server rebuild better-sqlite3
COPY . .
# `pnpm deploy` copies the server with its production dependencies alone to /out; its install would run
# the workspace's `prepare` too, so scripts are off and the addon built above is copied in.
RUN --mount=type=cache,id=ir21-pnpm-store,target=/pnpm-store \
    pnpm -F @ir21/web build \
 && pnpm -F @ir21/server build \
 && pnpm --filter @ir21/server deploy --legacy --prod --ignore-scripts --store-dir /pnpm-store /out \
 && mkdir -p /out/node_modules/better-sqlite3/build/Release \
 && cp server/node_modules/better-sqlite3/build/Release/better_sqlite3.node /out/node_modules/better-sqlite3/build/Release/ \
 && cd /out \
 && node -e "new (require('better-sqlite3'))(':memory:').close()" \
 && rm -rf src ./*.md tsconfig*.json tsdown.config.ts

FROM ${BASE}
# The data volume holds the SQLite default and whatever the server writes under DATA_DIR (generated
# secrets outside production, the dev SMS outbox). Production is the default: it requires
# SESSION_SECRET, OTP_PEPPER and an https PUBLIC_ORIGIN, and the start fails (exit 78) naming each
# one that is missing. HOST is every interface, as a container's port is published from outside.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data \
    DATABASE_URL=file:/data/ir21.sqlite \
    IR21_SMS_OUTBOX=/data/sms-outbox.jsonl
# A fixed uid/gid (not the base image's `node` user, which a custom base may lack), so that a volume's
# ownership can be prepared on the host: chown 10001:10001.
RUN groupadd --system --gid 10001 ir21 \
 && useradd --system --uid 10001 --gid ir21 --home-dir /data --no-create-home --shell /usr/sbin/nologin ir21 \
 && mkdir -p /data \
 && chown ir21:ir21 /data
# The application belongs to root and is read-only to the user running it.
COPY --from=build /out /app
RUN ln -s /app/bin/ir21-server.js /usr/local/bin/ir21-server
WORKDIR /app
USER ir21:ir21
VOLUME ["/data"]
EXPOSE 8787
# node is PID 1 and handles SIGTERM itself: /readyz turns 503 for SHUTDOWN_DRAIN_SECONDS (5 s in
# production), the listener closes, requests in flight finish (SHUTDOWN_TIMEOUT_MS, 10 s), exit 0.
# Give the runtime at least drain + timeout before it kills (docker stop -t 20, stop_grace_period: 20s).
STOPSIGNAL SIGTERM
# Ready, not merely alive: 503 during the first start's import of the reference data, while the
# database or Redis is unreachable, and while draining. The image has no curl; node's fetch does it.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 8787}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/ir21-server.js"]
CMD ["serve"]
