#!/usr/bin/env bash
# Runs the official MCP Inspector CLI against a freshly started server: a strict tools/list, which must report
# 0 errors and 0 warnings, and a tools/call of create_sandbox. Fails if either fails.
# INSPECTOR_KEEP=<dir> keeps the server log and the Inspector's output there for a look.
set -euo pipefail
cd "$(dirname "$0")/.."

data_dir=$(mktemp -d)
key=$(node_modules/.bin/node bin/sandtrap.js keys generate)
port_api=18925
log="$data_dir/server.log"
DATA_DIR="$data_dir" BOOTSTRAP_API_KEY="$key" API_PORT=$port_api SMTP_PORT=18987 SMTP_INBOUND_PORT=0 \
  CAPTURE_PORT=18926 LOG_LEVEL=warn node_modules/.bin/node bin/sandtrap.js serve >"$log" 2>&1 &
server_pid=$!
cleanup() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  if [ -n "${INSPECTOR_KEEP:-}" ]; then mkdir -p "$INSPECTOR_KEEP" && cp "$data_dir"/*.json "$data_dir"/*.log "$data_dir"/*.txt "$INSPECTOR_KEEP"/ 2>/dev/null || true; fi
  rm -rf "$data_dir"
}
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
# The strict checks print each finding on stderr ("Warning: tool ..." / "Error: ...") and a summary line
# "N errors, N warnings across N tools." when there is any; a clean run prints neither.
inspector --method tools/list --strict >"$data_dir/list.json" 2>"$data_dir/strict.txt" || {
  cat "$data_dir/strict.txt"
  exit 1
}
grep -q '"name": "wait_for_email"' "$data_dir/list.json"
if grep -Eq '^(Warning|Error)\b|\b[1-9][0-9]* (errors?|warnings?)\b' "$data_dir/strict.txt"; then
  grep -v '^npm warn' "$data_dir/strict.txt"
  echo "mcp-inspector: the strict check must report 0 errors and 0 warnings" >&2
  exit 1
fi

echo "mcp-inspector: tools/call create_sandbox"
inspector --method tools/call --tool-name create_sandbox --tool-arg name=ci-inspector >"$data_dir/call.json"
grep -q '"sandbox_id"' "$data_dir/call.json"
if grep -q '"isError": true' "$data_dir/call.json"; then
  cat "$data_dir/call.json"
  exit 1
fi
echo "mcp-inspector: ok"
