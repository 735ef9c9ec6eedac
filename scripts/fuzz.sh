#!/usr/bin/env bash
# Schema-driven fuzzing: Schemathesis (from PyPI, in a virtual environment) against the built server
# on a fresh embedded database, every operation of /openapi.json, a bounded number of examples.
# Weather points at a local fake provider, so no 5xx is expected anywhere. Prints Schemathesis's
# summary and a closing line "fuzz: N passed, N failed".
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
PORT=$port WEATHER_PORT=off DATA_DIR="$work/data" LOG_LEVEL=warn RATE_LIMITS=off \
  OPENWEATHERMAP_URL="http://127.0.0.1:$provider_port/data/2.5/weather" OPENWEATHERMAP_API_KEY=fuzz \
  WUNDERGROUND_URL="http://127.0.0.1:$provider_port" WUNDERGROUND_API_KEY=fuzz \
  node dist/server.js >"$work/server.log" 2>&1 &
pids+=($!)
wait_port "$provider_port"
wait_port "$port"

# A user whose Basic credentials open the catalogue (the other schemes are exercised without credentials).
curl -sf -X POST "http://127.0.0.1:$port/users" -H 'Content-Type: application/json' \
  -d '{"email":"fuzz@example.com","password":"fuzz-password"}' >/dev/null

status=0
"$venv/bin/st" run "http://127.0.0.1:$port/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "${FUZZ_EXAMPLES:-25}" --max-time "${FUZZ_SECONDS:-300}" --workers 2 --seed 20261121 \
  --auth fuzz@example.com:fuzz-password --request-timeout 10 --no-color \
  --report junit --report-junit-path "$work/junit.xml" || status=$?

node -e '
  const xml = require("fs").readFileSync(process.argv[1], "utf8");
  const count = (name) => [...xml.matchAll(new RegExp(`<testsuite[^>]* ${name}="(\\d+)"`, "g"))].reduce((n, m) => n + Number(m[1]), 0);
  const tests = count("tests"), failed = count("failures") + count("errors");
  console.log(`fuzz: ${tests - failed} passed, ${failed} failed`);
' "$work/junit.xml" || true
if (( status != 0 )); then
  echo "--- server log (last lines) ---"
  tail -n 40 "$work/server.log"
fi
exit $status
