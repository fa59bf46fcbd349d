# The sandtrap image: the server on the official Node 24 image, production dependencies only, data in /data.
# Build: docker build -t sandtrap .   Run: docker run -v sandtrap-data:/data -p 8025:8025 ... sandtrap (README, Deploy).

# Stage 1: the dashboard. Every dependency is installed here for esbuild; --ignore-scripts keeps the `node`
# devDependency from fetching a second Node 24 (126 MB) and defers the package's own postinstall, which needs
# the sources copied below. The npm cache is a build cache mount: kept between builds, never in a layer.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build-web.ts

# Stage 2: production dependencies, and the embedded store's migrated template beside them
# (node_modules/.cache/sandtrap/), so a new /data starts from a copy instead of running initdb (README).
# No package that production installs has an install script.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# esbuild is a production dependency only so that `npm ci --omit=dev` in a checkout builds the dashboard; the
# image carries the dashboard built in stage 1, so esbuild and its platform binary stay out.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/esbuild node_modules/@esbuild node_modules/.bin/esbuild
COPY src ./src
COPY scripts/pglite-template.ts ./scripts/
RUN node scripts/pglite-template.ts && ls node_modules/.cache/sandtrap/pglite-*.tar

# Stage 3: what runs. Application files stay root-owned and read-only to the `node` user (uid 1000, from the
# base image); only /data is its own.
FROM node:24-bookworm-slim
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/web ./dist/web
COPY package.json ./
COPY bin ./bin
COPY openapi/v1.json ./openapi/v1.json
COPY src ./src
RUN mkdir /data && chown node:node /data
# HOST=0.0.0.0: reachable through published ports. It also makes SMTP_CATCH_ALL=auto mean off (the inbound
# port takes mail only for sandbox domains); pass SMTP_CATCH_ALL=on to catch every address.
ENV HOST=0.0.0.0 \
    DATA_DIR=/data \
    API_PORT=8025 \
    SMTP_PORT=2587 \
    SMTP_INBOUND_PORT=2525 \
    CAPTURE_PORT=8026 \
    PROBE_PORT=8027
USER node
VOLUME /data
# API and dashboard, SMTP submission, SMTP inbound, HTTP capture, probes.
EXPOSE 8025 2587 2525 8026 8027
# GET /readyz on PROBE_PORT (store, start and every listener), a listener no burst of API connections can
# queue the probe behind; plain node, no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/bin/healthcheck.js"]
# The flag is the one `npm start` passes (README, memory). Arguments replace `serve`: `docker run … keys generate`.
ENTRYPOINT ["node", "--max-semi-space-size=4", "/app/bin/sandtrap.js"]
CMD ["serve"]
