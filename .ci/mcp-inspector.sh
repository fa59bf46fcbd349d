#!/usr/bin/env bash
# Runs the official MCP Inspector CLI against a freshly started server: a strict tools/list and a
# tools/call of create_sandbox. Fails if either fails.
set -euo pipefail
cd "$(dirname "$0")/.."

data_dir=$(mktemp -d)
key=$(node_modules/.bin/node bin/sandtrap.js keys generate)
port_api=18925
log="$data_dir/server.log"
DATA_DIR="$data_dir" BOOTSTRAP_API_KEY="$key" API_PORT=$port_api SMTP_PORT=18987 SMTP_INBOUND_PORT=0 \
  CAPTURE_PORT=18926 LOG_LEVEL=warn node_modules/.bin/node bin/sandtrap.js serve >"$log" 2>&1 &
server_pid=$!
cleanup() { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; rm -rf "$data_dir"; }
trap cleanup EXIT

for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port_api/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port_api/healthz" >/dev/null

inspector() {
  npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 -- mcp-inspector --cli "http://127.0.0.1:$port_api/mcp" \
    --transport http --header "Authorization: Bearer $key" "$@"
}

echo "mcp-inspector: tools/list --strict"
inspector --method tools/list --strict >"$data_dir/list.json"
grep -q '"name": "wait_for_email"' "$data_dir/list.json"

echo "mcp-inspector: tools/call create_sandbox"
inspector --method tools/call --tool-name create_sandbox --tool-arg name=ci-inspector >"$data_dir/call.json"
grep -q '"sandbox_id"' "$data_dir/call.json"
if grep -q '"isError": true' "$data_dir/call.json"; then
  cat "$data_dir/call.json"
  exit 1
fi
echo "mcp-inspector: ok"
