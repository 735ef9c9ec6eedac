#!/usr/bin/env bash
# Fetches Keycloak's server distribution from Maven Central once into the tool cache and prints its
# home, for `BENCH_KEYCLOAK=$(bash bench/keycloak-fetch.sh) npm run bench`. Keycloak runs on Java 17+.
set -euo pipefail
version=26.5.6
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rest-api-server
home=$cache/keycloak-$version
if [[ ! -x $home/bin/kc.sh ]]; then
  mkdir -p "$cache"
  archive=$cache/keycloak-$version.tar.gz
  curl -fsSL -o "$archive.partial" \
    "https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/$version/keycloak-quarkus-dist-$version.tar.gz"
  mv "$archive.partial" "$archive"
  tar -xzf "$archive" -C "$cache"
  rm -f "$archive"
fi
echo "$home"
