#!/usr/bin/env bash
# Schema-driven fuzzing: Schemathesis (from PyPI, in a virtual environment) against the built server
# on a fresh embedded database, every operation of /openapi.json, a bounded number of examples, with
# real credentials for every security scheme (scripts/fuzz/). Weather points at a local fake
# provider, so no 5xx is expected anywhere. Prints Schemathesis's summary and a closing line
# "fuzz: N passed, N failed". FUZZ_SECONDS, FUZZ_EXAMPLES and FUZZ_EXTRA (more st options, such as
# a HAR report) tune a run.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${FUZZ_VENV:-.data/fuzz-venv}
if [[ ! -x "$venv/bin/st" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis>=4.3,<5'
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_port() { for _ in $(seq 1 120); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.5; done; echo "nothing on port $1" >&2; return 1; }

npm run build --silent

provider_port=$(free_port)
PORT=$provider_port DELAY_MS=0 node -r ts-node/register/transpile-only bench/fake-weather-provider.ts &
pids+=($!)

port=$(free_port)
export FUZZ_METRICS_TOKEN=fuzz-metrics-token-of-at-least-32-characters
PORT=$port WEATHER_PORT=off DATA_DIR="$work/data" LOG_LEVEL=warn RATE_LIMITS=off METRICS_TOKEN=$FUZZ_METRICS_TOKEN \
  OPENWEATHERMAP_URL="http://127.0.0.1:$provider_port/data/2.5/weather" OPENWEATHERMAP_API_KEY=fuzz \
  WUNDERGROUND_URL="http://127.0.0.1:$provider_port" WUNDERGROUND_API_KEY=fuzz \
  node dist/server.js >"$work/server.log" 2>&1 &
pids+=($!)
wait_port "$provider_port"
wait_port "$port"

base="http://127.0.0.1:$port"
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
csrf_in() { sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -n1; }
cookie_in() { awk -v name="$2" '$6 == name { print $7 }' "$1"; }
post_json() { curl -sf -X POST "$base$1" -H 'Content-Type: application/json' "${@:3}" -d "$2"; }

# Real credentials for every security scheme, so the fuzzer gets past authentication everywhere:
# a user (Basic, POST /auth, the password grant), its JWT, an OAuth client allowed every grant, a
# signed-in session with its CSRF token, OAuth access tokens (one with openid), a dynamically registered
# client with its registration access token, and a second user to read and write.
export FUZZ_BASE_URL=$base FUZZ_EMAIL=fuzz@example.com FUZZ_PASSWORD=fuzz-password
export FUZZ_TARGET_EMAIL=fuzz-target@example.com FUZZ_REDIRECT_URI="$base/fuzz/callback"
FUZZ_USER_ID=$(post_json /users "{\"email\":\"$FUZZ_EMAIL\",\"password\":\"$FUZZ_PASSWORD\"}" | json_field id)
FUZZ_TARGET_ID=$(post_json /users "{\"email\":\"$FUZZ_TARGET_EMAIL\",\"password\":\"target-password\"}" | json_field id)
FUZZ_JWT=$(post_json /auth "{\"email\":\"$FUZZ_EMAIL\",\"password\":\"$FUZZ_PASSWORD\"}" | json_field accessToken)
client=$(post_json /oauth/clients \
  "{\"name\":\"Fuzz\",\"website\":\"$base\",\"redirect_uri\":\"$FUZZ_REDIRECT_URI\",\"grants\":[\"authorization_code\",\"implicit\",\"refresh_token\",\"password\",\"client_credentials\",\"urn:ietf:params:oauth:grant-type:device_code\"]}" \
  -H "Authorization: Bearer $FUZZ_JWT")
FUZZ_CLIENT_ID=$(json_field client_id <<<"$client")
FUZZ_CLIENT_SECRET=$(json_field client_secret <<<"$client")
FUZZ_OAUTH_TOKEN=$(curl -sf -X POST "$base/oauth/token" --data-urlencode grant_type=password --data-urlencode "username=$FUZZ_EMAIL" \
  --data-urlencode "password=$FUZZ_PASSWORD" --data-urlencode "client_id=$FUZZ_CLIENT_ID" --data-urlencode "client_secret=$FUZZ_CLIENT_SECRET" | json_field access_token)
FUZZ_OIDC_TOKEN=$(curl -sf -X POST "$base/oauth/token" --data-urlencode grant_type=password --data-urlencode "username=$FUZZ_EMAIL" \
  --data-urlencode "password=$FUZZ_PASSWORD" --data-urlencode "client_id=$FUZZ_CLIENT_ID" --data-urlencode "client_secret=$FUZZ_CLIENT_SECRET" \
  --data-urlencode "scope=openid profile email" | json_field access_token)
# The operator lets the run's client use the admin API (its own command, on the server's engine), and
# the client's admin-scope token opens /admin/api.
DATA_DIR="$work/data" LOG_LEVEL=silent node dist/cli/oauth-client.js update "$FUZZ_CLIENT_ID" --operator yes >/dev/null
FUZZ_ADMIN_TOKEN=$(curl -sf -X POST "$base/oauth/token" --data-urlencode grant_type=client_credentials --data-urlencode scope=admin \
  --data-urlencode "client_id=$FUZZ_CLIENT_ID" --data-urlencode "client_secret=$FUZZ_CLIENT_SECRET" | json_field access_token)
registration=$(post_json /oauth/register "{\"redirect_uris\":[\"$FUZZ_REDIRECT_URI\"]}" -H "Authorization: Bearer $FUZZ_JWT")
FUZZ_REGISTERED_CLIENT_ID=$(json_field client_id <<<"$registration")
FUZZ_REGISTRATION_TOKEN=$(json_field registration_access_token <<<"$registration")
anonymous_jar="$work/anonymous.jar" session_jar="$work/session.jar"
FUZZ_ANON_CSRF=$(curl -sf -c "$anonymous_jar" "$base/login" | csrf_in)
FUZZ_CSRF_COOKIE=$(cookie_in "$anonymous_jar" csrf)
curl -sf -c "$session_jar" -b "$anonymous_jar" -o /dev/null -X POST "$base/login" --data-urlencode "_csrf=$FUZZ_ANON_CSRF" \
  --data-urlencode "email=$FUZZ_EMAIL" --data-urlencode "password=$FUZZ_PASSWORD"
FUZZ_SID=$(cookie_in "$session_jar" sid)
FUZZ_SESSION_CSRF=$(curl -sf -b "$session_jar" "$base/home" | csrf_in)

# The console (/admin) is for an admin whose session gave a second factor in the last 10 minutes (the
# run takes 5): a third user, made admin, signs in and turns on an authenticator app, whose code
# python computes (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits).
export FUZZ_CONSOLE_EMAIL=fuzz-console@example.com
FUZZ_CONSOLE_ID=$(post_json /users "{\"email\":\"$FUZZ_CONSOLE_EMAIL\",\"password\":\"$FUZZ_PASSWORD\"}" | json_field id)
DATA_DIR="$work/data" LOG_LEVEL=silent node dist/cli/make-admin.js "$FUZZ_CONSOLE_EMAIL" >/dev/null
console_jar="$work/console.jar"
console_csrf=$(curl -sf -c "$console_jar" "$base/login" | csrf_in)
curl -sf -c "$console_jar" -b "$console_jar" -o /dev/null -X POST "$base/login" --data-urlencode "_csrf=$console_csrf" \
  --data-urlencode "email=$FUZZ_CONSOLE_EMAIL" --data-urlencode "password=$FUZZ_PASSWORD"
totp_page=$(curl -sf -b "$console_jar" -c "$console_jar" "$base/account/totp")
totp_key=$(grep -o '<code>[A-Z2-7 ]*</code>' <<<"$totp_page" | head -n1 | sed 's/<[^>]*>//g; s/ //g')
totp_code=$(python3 -c '
import base64, hashlib, hmac, struct, sys, time
key = base64.b32decode(sys.argv[1] + "=" * (-len(sys.argv[1]) % 8))
digest = hmac.new(key, struct.pack(">Q", int(time.time()) // 30), hashlib.sha1).digest()
offset = digest[-1] & 15
print("%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000))' "$totp_key")
curl -sf -b "$console_jar" -c "$console_jar" -o /dev/null -X POST "$base/account/totp" \
  --data-urlencode "_csrf=$(csrf_in <<<"$totp_page")" --data-urlencode "code=$totp_code"
FUZZ_CONSOLE_SID=$(cookie_in "$console_jar" sid)
FUZZ_CONSOLE_CSRF=$(curl -sf -b "$console_jar" "$base/home" | csrf_in)
curl -sf -o /dev/null -b "$console_jar" "$base/admin/people" || { echo "fuzz: the console did not open for its admin" >&2; exit 1; }
export FUZZ_CONSOLE_ID FUZZ_CONSOLE_SID FUZZ_CONSOLE_CSRF
export FUZZ_ADMIN_TOKEN FUZZ_USER_ID FUZZ_TARGET_ID FUZZ_JWT FUZZ_CLIENT_ID FUZZ_CLIENT_SECRET FUZZ_OAUTH_TOKEN FUZZ_OIDC_TOKEN FUZZ_REGISTERED_CLIENT_ID FUZZ_REGISTRATION_TOKEN FUZZ_ANON_CSRF FUZZ_CSRF_COOKIE FUZZ_SID FUZZ_SESSION_CSRF

status=0
PYTHONPATH=scripts/fuzz SCHEMATHESIS_HOOKS=hooks "$venv/bin/st" --config-file scripts/fuzz/schemathesis.toml run "$base/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "${FUZZ_EXAMPLES:-25}" --max-time "${FUZZ_SECONDS:-300}" --workers 2 --seed 20261121 \
  --request-timeout 10 --no-color --suppress-health-check=filter_too_much \
  --report junit --report-junit-path "$work/junit.xml" ${FUZZ_EXTRA:-} || status=$?

# Counted from the JUnit report; a run that failed on a warning alone counts as one failure.
node -e '
  const xml = require("fs").readFileSync(process.argv[1], "utf8");
  const count = (name) => [...xml.matchAll(new RegExp(`<testsuite[^>]* ${name}="(\\d+)"`, "g"))].reduce((n, m) => n + Number(m[1]), 0);
  const tests = count("tests");
  const failed = Math.max(count("failures") + count("errors"), Number(process.argv[2]) === 0 ? 0 : 1);
  console.log(`fuzz: ${tests - failed} passed, ${failed} failed`);
' "$work/junit.xml" "$status" || echo "fuzz: 0 passed, 1 failed"
if (( status != 0 )); then
  echo "--- server log (last lines) ---"
  tail -n 40 "$work/server.log"
fi
exit $status
