#!/usr/bin/env bash
# Runs the official MCP conformance suite's authorization-server scenarios (@modelcontextprotocol/conformance
# `authorization`: authorization-server-metadata-endpoint, authorization-code-grant) against a freshly started
# server. The suite prints an authorization URL and waits for a person; here the person's part is done over
# the dashboard's consent API with the API key (open the URL, approve, follow redirectTo to the suite's
# callback). Fails when the suite reports a failed check (its exit code) or the flow cannot be completed.
# CONFORMANCE_KEEP=<dir> keeps the server log and the suite's output and results there for a look.
set -euo pipefail
cd "$(dirname "$0")/.."

node=node_modules/.bin/node
data_dir=$(mktemp -d)
key=$($node bin/sandtrap.js keys generate)
port_api=18935
port_callback=18938
issuer="http://127.0.0.1:$port_api"
log="$data_dir/server.log"
out="$data_dir/conformance.txt"
# HOST 127.0.0.1: OAuth is on without PUBLIC_URL, and the issuer is http://127.0.0.1:<API_PORT>.
DATA_DIR="$data_dir" BOOTSTRAP_API_KEY="$key" HOST=127.0.0.1 API_PORT=$port_api SMTP_PORT=18997 \
  SMTP_INBOUND_PORT=0 CAPTURE_PORT=18936 LOG_LEVEL=warn $node bin/sandtrap.js serve >"$log" 2>&1 &
server_pid=$!
suite_pid=
cleanup() {
  [ -n "$suite_pid" ] && kill "$suite_pid" 2>/dev/null || true
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  if [ -n "${CONFORMANCE_KEEP:-}" ]; then
    mkdir -p "$CONFORMANCE_KEEP" && cp -r "$data_dir"/*.log "$data_dir"/*.txt "$data_dir"/results "$CONFORMANCE_KEEP"/ 2>/dev/null || true
  fi
  rm -rf "$data_dir"
}
trap cleanup EXIT

# A loaded CI machine can take a while to open a new embedded store: wait up to 2 minutes, not for a dead server.
for _ in $(seq 1 240); do
  curl -fsS "$issuer/healthz" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
if ! curl -fsS "$issuer/healthz" >/dev/null 2>&1; then
  cat "$log"
  echo "mcp-conformance-auth: the server did not become healthy at $issuer" >&2
  exit 1
fi

json_field() { $node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(typeof v!=="string"||v==="")process.exit(1);process.stdout.write(v)})' "$1"; }

echo "mcp-conformance-auth: registering a public client for the suite's callback"
client_id=$(curl -fsS "$issuer/oauth/register" -H 'content-type: application/json' \
  -d "{\"client_name\":\"MCP conformance suite\",\"redirect_uris\":[\"http://127.0.0.1:$port_callback/callback\"],\"token_endpoint_auth_method\":\"none\",\"grant_types\":[\"authorization_code\",\"refresh_token\"],\"response_types\":[\"code\"]}" |
  json_field client_id)

echo "mcp-conformance-auth: conformance authorization --url $issuer"
$node node_modules/.bin/conformance authorization --url "$issuer" --client-id "$client_id" \
  --resource "$issuer/mcp" --port "$port_callback" -o "$data_dir/results" >"$out" 2>&1 &
suite_pid=$!

# The suite prints the authorization URL on a line of its own once the metadata scenario has run.
auth_url=
for _ in $(seq 1 150); do
  auth_url=$(grep -m1 -E "^$issuer/oauth/authorize\?" "$out" || true)
  [ -n "$auth_url" ] && break
  kill -0 "$suite_pid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$auth_url" ]; then
  cat "$out"
  echo "mcp-conformance-auth: the suite printed no authorization URL" >&2
  exit 1
fi

# The person's part: /oauth/authorize sends the browser to the consent page; approving answers where to go.
consent=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "$auth_url")
case "$consent" in
  "302 $issuer/oauth/consent/"*) request_id=${consent##*/oauth/consent/} ;;
  *)
    cat "$out"
    echo "mcp-conformance-auth: /oauth/authorize answered '$consent', not a redirect to the consent page" >&2
    exit 1
    ;;
esac
redirect_to=$(curl -fsS "$issuer/api/v1/oauth/authorizations/$request_id" -H "authorization: Bearer $key" \
  -H 'content-type: application/json' -d '{"decision":"approve"}' | json_field redirectTo)
curl -fsS "$redirect_to" >/dev/null

status=0
wait "$suite_pid" || status=$?
suite_pid=
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "mcp-conformance-auth: the conformance suite failed (exit $status)" >&2
  exit "$status"
fi
# A scenario the suite could not run is reported as skipped, not failed: both must have passed checks.
for scenario in authorization-server-metadata-endpoint authorization-code-grant; do
  grep -Eq "^. $scenario: [1-9][0-9]* passed, 0 failed" "$out" || {
    echo "mcp-conformance-auth: $scenario did not pass" >&2
    exit 1
  }
done
echo "mcp-conformance-auth: ok"
