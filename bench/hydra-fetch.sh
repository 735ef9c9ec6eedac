#!/usr/bin/env bash
# Builds ORY Hydra once from the Go module proxy into the tool cache and prints the binary's path, for
# `BENCH_HYDRA=$(bash bench/hydra-fetch.sh) npm run bench`. Needs Go and a C compiler (SQLite is cgo).
# The module's zip leaves out the nested client module that its go.mod points at on disk; the build
# takes that module's published version from the proxy instead (it is only the CLI's API client).
set -euo pipefail
version=v2.3.0
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rest-api-server
binary=$cache/hydra-$version
if [[ ! -x $binary ]]; then
  mkdir -p "$cache"
  source_dir=$(go mod download -json "github.com/ory/hydra/v2@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  work=$(mktemp -d)
  trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
  cp -r "$source_dir/." "$work"
  chmod -R u+w "$work"
  (cd "$work" && go mod edit -dropreplace github.com/ory/hydra-client-go/v2 &&
    GOTOOLCHAIN=local GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=1 \
      go build -tags sqlite,sqlite_omit_load_extension -o "$binary.partial" . >&2)
  mv "$binary.partial" "$binary"
fi
echo "$binary"
