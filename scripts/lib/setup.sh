# Shared set-up for the README's run and test commands: Node dependencies (npm ci, skipped when
# package-lock.json is unchanged since the last install), the TypeScript build, then the Docker
# engine and the local images (installed and built on first use, quick afterwards). The test
# command adds PostgreSQL, docker-registry, git, OpenSSH's server and the Kubernetes test cluster.
# shellcheck shell=bash

sluice_step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# npm ci's result is kept on the machine per lockfile and Node version
# (/var/cache/sluice/node-modules/<hash>, the root's and each workspace's node_modules): a clean
# clone of the same lockfile copies it back (seconds) instead of installing again.
sluice_node_deps() {
  local stamp=node_modules/.sluice-lock-hash
  local hash cache=/var/cache/sluice/node-modules
  hash=$( (cat package-lock.json; node --version) | sha256sum | cut -c1-32)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    echo "node_modules up to date"
    return
  fi
  if [ ! -e node_modules ] && [ -f "$cache/$hash/.complete" ]; then
    sluice_step "node_modules (kept for this lockfile)"
    (cd "$cache/$hash" && find . -name node_modules -type d -prune) | while read -r dir; do
      mkdir -p "$(dirname "$dir")"
      cp -a "$cache/$hash/$dir" "$dir"
    done
    echo "node_modules copied from $cache/$hash"
    return
  fi
  sluice_step "npm ci"
  npm ci --no-audit --no-fund
  echo "$hash" > "$stamp"
  # Kept for the next clean clone; a machine where that cannot be written just installs again.
  if mkdir -p "$cache" 2> /dev/null; then
    rm -rf "${cache:?}/$hash.$$"
    find . -name node_modules -type d -prune -not -path './.git/*' | while read -r dir; do
      mkdir -p "$cache/$hash.$$/$(dirname "$dir")"
      cp -a "$dir" "$cache/$hash.$$/$dir"
    done
    touch "$cache/$hash.$$/.complete"
    find "$cache" -mindepth 1 -maxdepth 1 -not -name "$hash.$$" -exec rm -rf {} +
    mv "$cache/$hash.$$" "$cache/$hash" || rm -rf "${cache:?}/$hash.$$"
  fi
}

# A clean clone starts from the machine's last TypeScript outputs (scripts/lib/tsc-cache.mjs):
# tsc -b then checks and emits only what changed.
sluice_build() {
  sluice_step "build (tsc -b, the engine bundle, the web UI)"
  node scripts/lib/tsc-cache.mjs restore
  npx tsc -b
  node scripts/lib/tsc-cache.mjs save
  node scripts/bundle-engine.mjs
  node scripts/build-web.mjs
}

# Arguments go to prepare.js: the test command passes --test-services for what the test tiers
# use themselves, PostgreSQL (beside the embedded PGlite), a Docker registry (the push tests),
# git (test repositories) and OpenSSH's server (a git server over
# SSH), installed from Debian's archive when missing.
sluice_prepare_docker() {
  sluice_step "Docker engine and local images${1:+ (and the test services)}"
  node packages/testkit/dist/bin/prepare.js "$@"
}

# The kube tier's machine set-up: the Kubernetes binaries (built from Debian's source on the
# first run, about 12 minutes with progress lines; cached in /var/cache/sluice/kubernetes after
# that), etcd, containerd, the CNI plugins and the cluster images. The test command starts it in
# the background as soon as the TypeScript is built (sluice_start_kubernetes_setup), beside the
# rest of the set-up and the tests that do not need it, which run niced so that the build, on
# the kube tier's critical path, gets the CPU first; the kube tier waits for it. A failure is
# reported and the other tiers still run; the kube tests then fail with the same step and log in
# their message.
readonly SLUICE_PREPARE_KUBERNETES='node packages/testkit/dist/kubernetes/bin/prepare-kubernetes.js'

# Starts the kube set-up in the background, its output in a log file, and sets
# SLUICE_FOLLOW_KUBERNETES_SETUP to a shell command that prints that log as it grows and exits
# with the set-up's status once it ends (run-tests.mjs --background-setup runs it).
sluice_start_kubernetes_setup() {
  local dir
  # Not under a cluster's name (sluice-kube-<hex>): a cluster start sweeps those away.
  dir=$(mktemp -d /tmp/sluice-setup-kube.XXXXXX)
  (
    set +e
    $SLUICE_PREPARE_KUBERNETES > "$dir/log" 2>&1
    echo $? > "$dir/status"
  ) &
  SLUICE_FOLLOW_KUBERNETES_SETUP="tail -n +1 -f --pid=$! '$dir/log'; s=\$(cat '$dir/status' 2>/dev/null || echo 1); rm -rf '$dir'; exit \$s"
  echo "the kube tier's set-up runs in the background (log: $dir/log)"
}

# The web UI's browser tests drive Debian's Chromium through playwright-core, which never
# downloads a browser of its own: installed once from Debian's archive, kept afterwards.
sluice_prepare_chromium() {
  if command -v chromium >/dev/null 2>&1; then
    echo "chromium present"
    return
  fi
  sluice_step "Chromium (the web UI's browser tests)"
  # The kube set-up started before may hold dpkg's lock: wait for it.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium
}

# The run command's set-up (the test command calls the steps itself, starting the kube set-up
# in between).
sluice_setup() {
  sluice_node_deps
  sluice_build
  sluice_prepare_docker
}
