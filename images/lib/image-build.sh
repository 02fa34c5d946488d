# What images/build-local.sh and images/build-cluster-images.sh share: messages, the --registry
# and --only flags, apt installs, the Docker check, the up-to-date label, `docker import` of a
# root filesystem, the build lock and work directory. Sourced (not run) after the script has set
# SCRIPT_PATH; part of both scripts' image hashes, so a change here rebuilds their images.
# shellcheck shell=bash

# shellcheck disable=SC2034 # read by the scripts that source this file
readonly IMAGE_LIB_PATH=$(readlink -f "${BASH_SOURCE[0]}")
readonly PROG=$(basename "$SCRIPT_PATH" .sh)
readonly LABEL=io.sluice.image-hash
readonly IMAGE_PATH_ENV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

REGISTRY=""
ONLY=""
FORCE=0
WORK_DIR=""

log() { printf '%s\n' "$*"; }

die() {
  printf '%s: error: %s\n' "$PROG" "$1" >&2
  if [[ -n "${2:-}" ]]; then printf '%s: hint: %s\n' "$PROG" "$2" >&2; fi
  exit 1
}

# The script's header from its `# Usage:` line on.
usage() { sed -n '/^# Usage:/,/^set -euo/p' "$SCRIPT_PATH" | sed '$d; s/^# \{0,1\}//'; }

# parse_image_args "NAME..." ARGS...: sets REGISTRY, ONLY (one of the NAMEs, or empty for all)
# and FORCE.
parse_image_args() {
  local names=$1 hint
  shift
  hint="use one of: ${names// /, }"
  while (($#)); do
    case "$1" in
      --registry) [[ $# -ge 2 ]] || die "--registry needs a value" "e.g. --registry localhost:5000"
        REGISTRY=$2; shift 2 ;;
      --registry=*) REGISTRY=${1#*=}; shift ;;
      --only) [[ $# -ge 2 ]] || die "--only needs a value" "$hint"
        ONLY=$2; shift 2 ;;
      --only=*) ONLY=${1#*=}; shift ;;
      --force) FORCE=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown option $1" "run $0 --help" ;;
    esac
  done
  if [[ -n "$REGISTRY" && ! "$REGISTRY" =~ ^[A-Za-z0-9.-]+(:[0-9]+)?$ ]]; then
    die "invalid --registry $REGISTRY" "give HOST or HOST:PORT, e.g. registry.local:5000"
  fi
  ONLY=${ONLY#sluice/}
  ONLY=${ONLY%%:*}
  [[ -z "$ONLY" || " $names " == *" $ONLY "* ]] || die "unknown image $ONLY for --only" "$hint"
}

wanted() { [[ -z "$ONLY" || "$ONLY" == "$1" ]]; }

apt_install() {
  local package=$1
  [[ $(id -u) -eq 0 ]] || die "$package is missing and installing it needs root" "sudo apt-get install -y $package"
  log "installing $package with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  # The test command's Kubernetes set-up may be installing packages at the same time: wait for
  # dpkg's lock instead of failing at once.
  local wait=(-o DPkg::Lock::Timeout=600)
  if ! apt-get "${wait[@]}" install -y --no-install-recommends "$package" >/dev/null 2>&1; then
    # A fresh machine often has no package lists yet.
    apt-get "${wait[@]}" update >/dev/null 2>&1 || die "apt-get update failed" "check the apt mirrors, then rerun $0"
    apt-get "${wait[@]}" install -y --no-install-recommends "$package" >/dev/null ||
      die "apt-get install -y $package failed" "run apt-get update && apt-get install -y $package"
  fi
}

check_docker() {
  command -v docker >/dev/null 2>&1 ||
    die "the docker CLI is not installed" \
      "apt-get install -y docker.io && (dockerd > /var/log/dockerd.log 2>&1 &), or: node packages/testkit/dist/bin/prepare.js"
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
    die "the Docker engine does not answer (DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock})" \
      "start it with: dockerd > /var/log/dockerd.log 2>&1 &  (or run node packages/testkit/dist/bin/prepare.js)"
}

# Shared libraries (and the dynamic loader) of the given ELF files, as ldd resolves them.
shared_libraries() {
  local out missing
  out=$(ldd "$@") || die "ldd failed on $*" "apt-get install -y libc-bin"
  missing=$(awk '$2 == "=>" && $3 == "not" { print $1 }' <<<"$out" | sort -u)
  [[ -z "$missing" ]] ||
    die "shared libraries of $* not found on this host: $missing" "reinstall the packages that ship $*"
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' <<<"$out" | sort -u
}

current_label() {
  docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null || true
}

# up_to_date IMAGE HASH: the image exists with this hash as its label (and --force was not given).
up_to_date() {
  [[ $FORCE -eq 0 && "$(current_label "$1")" == "$2" ]]
}

# import_root ROOT IMAGE HASH [--change ...]: a tar of ROOT becomes IMAGE, labelled with HASH.
# Owners are kept as they are on disk when root made the tree (debootstrap's system users);
# a tree that a user without root made is owned by the image's root.
import_root() {
  local root=$1 image=$2 hash=$3 old_id
  shift 3
  local owner=()
  [[ $(id -u) -eq 0 ]] || owner=(--owner=0 --group=0)
  local failure
  old_id=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  # The engine's own words say what went wrong (a full disk, a storage driver problem).
  failure=$(tar --numeric-owner "${owner[@]}" --sort=name --mtime=@0 -C "$root" -cf - . |
    docker import --change "LABEL $LABEL=$hash" --change "LABEL org.opencontainers.image.title=$image" \
      --change "ENV PATH=$IMAGE_PATH_ENV" "$@" - "$image" 2>&1 >/dev/null) ||
    die "docker import of $image failed: ${failure:-no output}" \
      "check the engine with: docker info (and its log)"
  # The previous build is now untagged; drop it unless a container or another tag still uses it.
  if [[ -n "$old_id" ]]; then docker image rm "$old_id" >/dev/null 2>&1 || true; fi
  log "built $image ($(docker image inspect --format '{{.Size}}' "$image") bytes)"
}

tag_for_registry() {
  [[ -z "$REGISTRY" ]] && return 0
  docker tag "$1" "$REGISTRY/$1"
  log "tagged $REGISTRY/$1"
}

# start_build LOCK_NAME: waits for other runs of the same script (test files run in parallel
# and may all call it), then makes WORK_DIR, removed on exit.
start_build() {
  exec 9>"${TMPDIR:-/tmp}/$1.lock"
  flock 9
  WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  trap 'rm -rf "$WORK_DIR"' EXIT
}
