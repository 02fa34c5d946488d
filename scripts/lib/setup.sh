# Shared set-up for the README's run and test commands: Node dependencies (npm ci, skipped when
# package-lock.json is unchanged since the last install), the TypeScript build, then the Docker
# engine and the local images (installed and built on first use, quick afterwards).
# shellcheck shell=bash

sluice_step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

sluice_node_deps() {
  local stamp=node_modules/.sluice-lock-hash
  local hash
  hash=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    echo "node_modules up to date"
    return
  fi
  sluice_step "npm ci"
  npm ci --no-audit --no-fund
  echo "$hash" > "$stamp"
}

sluice_build() {
  sluice_step "build (tsc -b)"
  npx tsc -b
}

sluice_prepare_docker() {
  sluice_step "Docker engine and local images"
  node packages/testkit/dist/bin/prepare.js
}

sluice_setup() {
  sluice_node_deps
  sluice_build
  sluice_prepare_docker
}
