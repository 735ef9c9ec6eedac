#!/usr/bin/env bash
# Interoperability with a third-party client: Python's authlib (from PyPI, in a virtual environment)
# against the built server on a fresh embedded database (scripts/interop/authlib_check.py).
# Prints a line per check and a closing line "interop: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${INTEROP_VENV:-.data/interop-venv}
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import authlib, joserfc, requests' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'authlib>=1.6,<2' 'joserfc>=1.1,<2' 'requests>=2.32,<3'
fi

work=$(mktemp -d)
server=''
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

npm run build --silent
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
base="http://127.0.0.1:$port"
PORT=$port WEATHER_PORT=off DATA_DIR="$work/data" LOG_LEVEL=warn RATE_LIMITS=off PUBLIC_URL=$base \
  node dist/server.js >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.5; done

status=0
"$venv/bin/python" scripts/interop/authlib_check.py "$base" || status=$?
if ((status != 0)); then
  echo "--- server log (last lines) ---"
  tail -n 40 "$work/server.log"
fi
exit $status
