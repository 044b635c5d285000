#!/usr/bin/env bash
# Builds the Docker Compose v2 CLI plugin from source with the Go toolchain and installs it as
# ~/.docker/cli-plugins/docker-compose (what `docker compose` runs; it also runs alone as `docker-compose`).
# Only `docker compose config` is needed here (ComposeFileTest), which needs no Docker engine. Debian bookworm
# packages only Compose v1, hence the source build: about 4 minutes on 2 cores with an empty Go module cache.
set -euo pipefail
version="${COMPOSE_VERSION:-v2.40.3}"
target="${COMPOSE_PLUGIN_DIR:-$HOME/.docker/cli-plugins}"
command -v go >/dev/null 2>&1 || { echo "install-compose-plugin: no Go toolchain" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# `go install module@version` refuses modules whose go.mod has replace/exclude directives, so fetch the module
# source and build it in place.
(cd "$work" && go mod init compose-fetch >/dev/null 2>&1 && go mod download -json "github.com/docker/compose/v2@$version") \
  > "$work/download.json"
src="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' "$work/download.json")"
[ -n "$src" ] || { echo "install-compose-plugin: download failed: $(cat "$work/download.json")" >&2; exit 1; }
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
mkdir -p "$target"
(cd "$work/src" && go build -trimpath \
  -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$version" \
  -o "$target/docker-compose" ./cmd)
echo "install-compose-plugin: installed $("$target/docker-compose" version) at $target/docker-compose"
