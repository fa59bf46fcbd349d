#!/usr/bin/env bash
# Builds the real Dockerfile with podman and runs the image: healthy, a mail and an HTTP capture in and read back
# through REST, then the container replaced by a new one on the same volume and the data read back byte-equal.
# No registry image can be pulled here, so the base the Dockerfile names (node:24-bookworm-slim) is stood in
# for by a local image: Debian bookworm (debootstrap --variant=minbase, cached under $CACHE), the Node 24 binary
# of the `node` devDependency, the machine's npm, and the `node` user (uid 1000) the official image has.
# A machine that cannot run containers (no podman and no way to install it, or `podman run` failing for
# environment reasons) gets one SKIP line and exit 0; anything else that fails is a failure.
# CONTAINER_TEST_KEEP=1 keeps the built image, container and volume for a look.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${SANDTRAP_CI_CACHE:-/var/cache/sandtrap-ci}
BASE_TAG=docker.io/library/node:24-bookworm-slim
MINBASE_TAG=localhost/sandtrap-ci/bookworm-minbase:latest
IMAGE=localhost/sandtrap:container-test
NAME=sandtrap-container-test-$$
VOLUME=sandtrap-container-test-$$
started=$(date +%s)
phase_started=$started

say() { echo "container-test: $*"; }
skip() {
  say "SKIP: this machine cannot run containers ($*); the image was not tested"
  exit 0
}
phase() {
  local now
  now=$(date +%s)
  say "$1 ($((now - phase_started)) s)"
  phase_started=$now
}

# --- Tools -------------------------------------------------------------------------------------------------
missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || skip "${missing[*]} missing, and not root to install them"
  say "installing ${missing[*]} from Debian"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
    skip "apt-get could not install ${missing[*]}"
fi
[ "$(id -u)" = 0 ] || skip "rootful podman needs root here"
mkdir -p "$CACHE"

# No systemd and no cgroup delegation here: cgroupfs, runc, and no default ulimits (the sandbox refuses them).
export CONTAINERS_CONF="$CACHE/containers.conf"
cat >"$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
EOF
phase "podman $(podman --version | awk '{print $3}') with runc ready"

# --- The stand-in base image ---------------------------------------------------------------------------------
node_bin=$(readlink -f node_modules/.bin/node 2>/dev/null || true)
if [ -z "$node_bin" ] || ! "$node_bin" --version 2>/dev/null | grep -q '^v24\.'; then
  node_bin=$(command -v node)
  "$node_bin" --version | grep -q '^v24\.' || {
    say "FAIL: no Node 24 binary for the stand-in base (run npm ci first: the node devDependency)"
    exit 1
  }
fi
npm_dir=$(npm root -g)/npm
[ -f "$npm_dir/bin/npm-cli.js" ] || {
  say "FAIL: no npm at $npm_dir to put into the stand-in base"
  exit 1
}
standin_label="node-$("$node_bin" --version)-npm-$(node "$npm_dir/bin/npm-cli.js" --version)-r2"

have_label=$(podman image inspect --format '{{index .Labels "sandtrap.ci.standin"}}' "$BASE_TAG" 2>/dev/null || echo absent)
if [ "$have_label" = "" ] || [ "$have_label" = "<no value>" ]; then
  say "using the real $BASE_TAG found in local storage"
elif [ "$have_label" != "$standin_label" ]; then
  if ! podman image exists "$MINBASE_TAG"; then
    rootfs="$CACHE/bookworm-minbase"
    if [ ! -f "$rootfs.done" ]; then
      # The mirror apt already uses on this machine (Debian's, in deb822 or one-line form).
      mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\/\?\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
      [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
      mirror=${mirror:-http://deb.debian.org/debian}
      say "debootstrap --variant=minbase bookworm from $mirror (cached in $rootfs)"
      rm -rf "$rootfs"
      debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$CACHE/debootstrap.log" 2>&1 || {
        tail -20 "$CACHE/debootstrap.log"
        say "FAIL: debootstrap failed"
        exit 1
      }
      # What the official slim image leaves out too: package lists and downloaded archives.
      rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
      touch "$rootfs.done"
    fi
    tar -C "$rootfs" -c . | podman import --quiet - "$MINBASE_TAG" >/dev/null
  fi
  context=$(mktemp -d)
  cp "$node_bin" "$context/node"
  cp -a "$npm_dir" "$context/npm"
  rm -f "$context/npm/npmrc" # this machine's built-in npm config; the official image has none
  # The npm registry may be reached through this machine's TLS proxy: the stand-in trusts what the machine's
  # npm trusts (its cafile), as a build on this machine would. The real Dockerfile is left as it is.
  cafile=$(npm config get cafile 2>/dev/null || true)
  if [ -f "$cafile" ]; then cp "$cafile" "$context/ca.crt"; else : >"$context/ca.crt"; fi
  cat >"$context/Containerfile" <<EOF
FROM $MINBASE_TAG
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY ca.crt /usr/local/share/sandtrap-ci/ca.crt
RUN if [ -s /usr/local/share/sandtrap-ci/ca.crt ]; then \
      echo cafile=/usr/local/share/sandtrap-ci/ca.crt >/usr/local/etc/npmrc; fi \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
LABEL sandtrap.ci.standin="$standin_label"
CMD ["node"]
EOF
  podman build --quiet --pull=never --format docker -t "$BASE_TAG" "$context" >/dev/null
  rm -rf "$context"
  phase "stand-in $BASE_TAG built ($standin_label)"
else
  phase "stand-in $BASE_TAG cached ($standin_label)"
fi

# --- Build the image ---------------------------------------------------------------------------------------
# --format docker: the OCI format has no HEALTHCHECK. --network=host: npm ci reaches the npm registry.
build_started=$(date +%s)
podman build --pull=never --format docker --network=host -t "$IMAGE" -f Dockerfile . >"$CACHE/build.log" 2>&1 || {
  tail -40 "$CACHE/build.log"
  say "FAIL: podman build failed (whole log: $CACHE/build.log)"
  exit 1
}
build_seconds=$(($(date +%s) - build_started))
# Earlier builds' untagged stages are the layer cache of the next build; only week-old ones go.
podman image prune --force --filter until=168h >/dev/null 2>&1 || true
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
phase "image built in ${build_seconds} s: $IMAGE, $((size / 1000000)) MB ($size bytes)"

# --- Run ---------------------------------------------------------------------------------------------------
cleanup() {
  if [ -n "${CONTAINER_TEST_KEEP:-}" ]; then
    say "kept: container $NAME, volume $VOLUME, image $IMAGE"
    return
  fi
  podman rm --force --time 5 "$NAME" >/dev/null 2>&1 || true
  podman volume rm --force "$VOLUME" >/dev/null 2>&1 || true
  rm -f "${state:-}"
}
trap cleanup EXIT

# podman's stderr goes to a log: without systemd it reports every healthcheck timer it cannot add or remove.
podman_log="$CACHE/podman.log"
: >"$podman_log"
key=$(podman run --rm "$IMAGE" keys generate 2>>"$podman_log")
[[ "$key" =~ ^stk_ ]] || {
  say "FAIL: \`podman run IMAGE keys generate\` printed $key"
  exit 1
}
read -r port_api port_smtp port_inbound port_capture < <(node -e '
  const net = require("node:net");
  Promise.all([0, 1, 2, 3].map(() => new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
  }))).then((ports) => console.log(ports.join(" ")));')
podman volume create "$VOLUME" >/dev/null

start_container() {
  podman run --detach --name "$NAME" --volume "$VOLUME:/data" \
    --publish "127.0.0.1:$port_api:8025" --publish "127.0.0.1:$port_smtp:2587" \
    --publish "127.0.0.1:$port_inbound:2525" --publish "127.0.0.1:$port_capture:8026" \
    --health-interval disable --env BOOTSTRAP_API_KEY="$key" "$IMAGE" >/dev/null 2>>"$podman_log"
}

# podman runs a HEALTHCHECK on a systemd timer, and there is no systemd here: `podman healthcheck run` runs the
# image's HEALTHCHECK command in the container now and records the outcome in the container's health status.
wait_healthy() {
  local deadline=$(($(date +%s) + 180))
  until podman healthcheck run "$NAME" >/dev/null 2>&1; do
    if [ "$(podman inspect --format '{{.State.Running}}' "$NAME")" != true ]; then
      podman logs "$NAME" 2>&1 | tail -20
      say "FAIL: the container stopped before it was healthy"
      exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      podman logs "$NAME" 2>&1 | tail -20
      say "FAIL: not healthy within 180 s"
      exit 1
    fi
    sleep 1
  done
  local status
  status=$(podman inspect --format '{{.State.Health.Status}}' "$NAME" 2>/dev/null ||
    podman inspect --format '{{.State.Healthcheck.Status}}' "$NAME")
  [ "$status" = healthy ] || {
    say "FAIL: healthcheck passed but the status is $status"
    exit 1
  }
}

if ! start_container; then
  tail -5 "$podman_log"
  skip "podman run failed: $(grep -v systemd "$podman_log" | tail -1)"
fi
wait_healthy
phase "container healthy: $(podman exec "$NAME" node /app/bin/healthcheck.js)"

# What the image holds and how it runs.
uid=$(podman exec "$NAME" id -u)
[ "$uid" != 0 ] || {
  say "FAIL: the server runs as root"
  exit 1
}
podman exec "$NAME" sh -c 'test ! -e /app/node_modules/node && test ! -e /app/node_modules/esbuild &&
  test -f /app/dist/web/index.html && ls /app/node_modules/.cache/sandtrap/pglite-*.tar >/dev/null' || {
  say "FAIL: the image holds dev dependencies, or lacks the dashboard or the store template"
  exit 1
}
say "runs as uid $uid; no dev dependencies; dashboard and store template present"

export CT_API_PORT=$port_api CT_SMTP_INBOUND_PORT=$port_inbound CT_CAPTURE_PORT=$port_capture CT_KEY=$key
state=$(mktemp)
node .ci/container-traffic.mjs send "$state"
dashboard_status=$(node -e 'fetch(process.argv[1]).then((r) => console.log(r.status))' "http://127.0.0.1:$port_api/")
[ "$dashboard_status" = 200 ] || {
  say "FAIL: the dashboard answered $dashboard_status"
  exit 1
}
phase "mail and capture in and read back through REST; dashboard answered 200"

# SIGTERM: the server shuts down gracefully and exits 0.
podman stop --time 20 "$NAME" >/dev/null 2>>"$podman_log"
exit_code=$(podman inspect --format '{{.State.ExitCode}}' "$NAME")
[ "$exit_code" = 0 ] || {
  podman logs "$NAME" 2>&1 | tail -20
  say "FAIL: the container exited $exit_code on stop"
  exit 1
}
podman rm "$NAME" >/dev/null 2>>"$podman_log"
start_container
wait_healthy
node .ci/container-traffic.mjs verify "$state"
phase "a new container on the same volume is healthy and has the data"

# Misconfigured containers exit non-zero with one line saying what to fix (issue 38, bad input).
refuses() {
  local what=$1 pattern=$2
  shift 2
  local out code=0
  out=$(podman run --rm "$@" "$IMAGE" 2>&1 >/dev/null | grep -v -i systemd) || true
  code=$(podman run --rm "$@" "$IMAGE" >/dev/null 2>&1; echo $?)
  if [ "$code" = 0 ] || [ "$(printf '%s\n' "$out" | grep -c .)" != 1 ] || ! grep -qE "$pattern" <<<"$out"; then
    say "FAIL: $what: exit $code, said: $out"
    exit 1
  fi
  say "$what: exit $code, one line: $out"
}
podman volume create "$VOLUME-ro" >/dev/null
refuses "a read-only /data" 'DATA_DIR /data is not writable' --volume "$VOLUME-ro:/data:ro"
podman volume rm --force "$VOLUME-ro" >/dev/null 2>&1 || true
refuses "an unreachable DATABASE_URL" 'database is unreachable' --env DATABASE_URL=postgres://nobody@127.0.0.1:1/none
refuses "a taken port" 'already in use' --network host --env HOST=127.0.0.1 --env API_PORT="$port_api" \
  --env SMTP_PORT=0 --env SMTP_INBOUND_PORT=0 --env CAPTURE_PORT=0 --env DATA_DIR=/tmp/data
phase "misconfigured containers refuse in one line"

say "OK in $(($(date +%s) - started)) s: image $((size / 1000000)) MB, built in ${build_seconds} s"
