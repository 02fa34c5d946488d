#!/usr/bin/env bash
# Builds Sluice's local images with `docker import` from root filesystems assembled on this host.
# Nothing is pulled: the machine can reach npm and Debian's apt mirrors, but no image registry.
#
#   sluice/busybox:1  Debian's busybox-static with its applet links, /tmp, /etc/passwd and group
#   sluice/git:1      the busybox base plus the host's git, the git-core helpers for clone, fetch
#                     and checkout over file:// and http(s)://, CA certificates and every shared
#                     library they need (found with ldd, copied with the dynamic loader)
#
# Each image carries the label io.sluice.image-hash: the sha256 of this script and of the host
# files that go into it (binaries, libraries, certificates) plus their versions. An image whose
# label matches is left alone, so a second run only inspects and finishes in well under 2 s.
#
# Usage: images/build-local.sh [--only busybox|git] [--registry HOST[:PORT]]
#   --only NAME          build just one image (busybox, git, or sluice/NAME:TAG)
#   --registry HOST[:P]  also tag each image as HOST[:P]/sluice/NAME:TAG (nothing is pushed)
set -euo pipefail

readonly SCRIPT_PATH=$(readlink -f "${BASH_SOURCE[0]}")
readonly LABEL=io.sluice.image-hash
readonly BUSYBOX_IMAGE=sluice/busybox:1
readonly GIT_IMAGE=sluice/git:1
readonly IMAGE_PATH_ENV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
readonly CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
readonly GIT_CORE=/usr/lib/git-core
readonly GIT_TEMPLATES=/usr/share/git-core/templates
# Helpers beyond the builtins that a clone or fetch may exec: http(s) transport and the shell
# scripts `git submodule` still relies on. Builtins (upload-pack, receive-pack, ...) are links to git.
readonly GIT_HELPERS=(git-remote-http git-sh-setup git-sh-i18n git-sh-i18n--envsubst git-submodule)
readonly MANUAL_FIX='apt-get install -y docker.io && (dockerd > /var/log/dockerd.log 2>&1 &)'

REGISTRY=""
ONLY=""
WORK_DIR=""

log() { printf '%s\n' "$*"; }

die() {
  printf 'build-local: error: %s\n' "$1" >&2
  if [[ -n "${2:-}" ]]; then printf 'build-local: hint: %s\n' "$2" >&2; fi
  exit 1
}

usage() { sed -n '/^# Usage:/,/^set -euo/p' "$SCRIPT_PATH" | sed '$d; s/^# \{0,1\}//'; }

parse_args() {
  while (($#)); do
    case "$1" in
      --registry) [[ $# -ge 2 ]] || die "--registry needs a value" "e.g. --registry localhost:5000"
        REGISTRY=$2; shift 2 ;;
      --registry=*) REGISTRY=${1#*=}; shift ;;
      --only) [[ $# -ge 2 ]] || die "--only needs a value" "use --only busybox or --only git"
        ONLY=$2; shift 2 ;;
      --only=*) ONLY=${1#*=}; shift ;;
      -h | --help) usage; exit 0 ;;
      *) die "unknown option $1" "run $0 --help" ;;
    esac
  done
  if [[ -n "$REGISTRY" && ! "$REGISTRY" =~ ^[A-Za-z0-9.-]+(:[0-9]+)?$ ]]; then
    die "invalid --registry $REGISTRY" "give HOST or HOST:PORT, e.g. registry.local:5000"
  fi
  ONLY=${ONLY#sluice/}
  ONLY=${ONLY%%:*}
  case "$ONLY" in
    "" | busybox | git) ;;
    *) die "unknown image $ONLY for --only" "use --only busybox or --only git" ;;
  esac
}

require_root_for() {
  [[ $(id -u) -eq 0 ]] || die "$1 is missing and installing it needs root" "sudo apt-get install -y $2"
}

apt_install() {
  local package=$1
  require_root_for "$package" "$package"
  log "installing $package with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "$package" >/dev/null 2>&1; then
    # A fresh machine often has no package lists yet.
    apt-get update >/dev/null 2>&1 || die "apt-get update failed" "check the apt mirrors, then rerun $0"
    apt-get install -y --no-install-recommends "$package" >/dev/null ||
      die "apt-get install -y $package failed" "run apt-get update && apt-get install -y $package"
  fi
}

check_docker() {
  command -v docker >/dev/null 2>&1 ||
    die "the docker CLI is not installed" "$MANUAL_FIX, or: node packages/testkit/dist/bin/prepare.js"
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
    die "the Docker engine does not answer (DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock})" \
      "start it with: dockerd > /var/log/dockerd.log 2>&1 &  (or run node packages/testkit/dist/bin/prepare.js)"
}

check_busybox() {
  [[ -x /bin/busybox ]] || apt_install busybox-static
  [[ -x /bin/busybox ]] || die "/bin/busybox is still missing after installing busybox-static" \
    "run apt-get install --reinstall -y busybox-static"
  # Debian's plain `busybox` package is dynamically linked and would not run in an empty image.
  if ldd /bin/busybox >/dev/null 2>&1; then
    die "/bin/busybox is dynamically linked (package busybox)" "apt-get install -y busybox-static"
  fi
}

check_git() {
  [[ -x /usr/bin/git ]] || apt_install git
  [[ -f "$CA_BUNDLE" ]] || apt_install ca-certificates
  [[ -x /usr/bin/git && -f "$CA_BUNDLE" ]] ||
    die "git or $CA_BUNDLE is still missing" "apt-get install -y git ca-certificates"
}

# Every ELF file git needs inside the image: the binary plus the helpers that are real files.
git_elf_files() {
  printf '%s\n' /usr/bin/git
  local helper
  for helper in git-remote-http git-sh-i18n--envsubst; do
    [[ -f "$GIT_CORE/$helper" ]] && printf '%s\n' "$GIT_CORE/$helper"
  done
  return 0
}

# Shared libraries (and the dynamic loader) of the given ELF files, as ldd resolves them.
shared_libraries() {
  local out
  out=$(ldd "$@") || die "ldd failed on $*" "apt-get install -y libc-bin"
  local missing
  missing=$(awk '$2 == "=>" && $3 == "not" { print $1 }' <<<"$out" | sort -u)
  [[ -z "$missing" ]] || die "shared libraries not found on this host: $missing" "apt-get install --reinstall -y git"
  awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(0x/ { print $1 }' <<<"$out" | sort -u
}

git_input_files() {
  local elf=()
  mapfile -t elf < <(git_elf_files)
  printf '%s\n' "${elf[@]}"
  shared_libraries "${elf[@]}"
  local helper
  for helper in git-sh-setup git-sh-i18n git-submodule; do
    [[ -f "$GIT_CORE/$helper" ]] && printf '%s\n' "$GIT_CORE/$helper"
  done
  printf '%s\n' "$CA_BUNDLE"
  if [[ -d "$GIT_TEMPLATES" ]]; then find "$GIT_TEMPLATES" -type f | sort; fi
}

# sha256 of the script, the image name, the versions and the content of every input file.
inputs_hash() {
  local image=$1; shift
  {
    sha256sum < "$SCRIPT_PATH" # content only, so checkouts elsewhere share the images
    printf 'image=%s\n' "$image"
    /bin/busybox 2>/dev/null | head -n 1 || true
    if [[ "$image" == "$GIT_IMAGE" ]]; then
      /usr/bin/git --version
      find "$GIT_CORE" -maxdepth 1 -type l -printf '%f -> %l\n' | sort
    fi
    sha256sum "$@"
  } | sha256sum | cut -d ' ' -f 1
}

current_label() {
  docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null || true
}

make_busybox_root() {
  local root=$1 applet
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,root,home,tmp,var/tmp,dev,proc,sys,run}
  chmod 1777 "$root/tmp" "$root/var/tmp"
  chmod 0700 "$root/root"
  cp /bin/busybox "$root/bin/busybox"
  while read -r applet; do
    [[ "$applet" == */* && ! -e "$root/$applet" ]] && ln -s /bin/busybox "$root/$applet"
  done < <(/bin/busybox --list-full)
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  # Docker bind-mounts its own hosts, hostname and resolv.conf over these; they exist so the
  # image also works with `docker export` or a plain chroot.
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
  printf 'localhost\n' >"$root/etc/hostname"
  : >"$root/etc/resolv.conf"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  printf 'NAME="Sluice busybox"\nID=sluice-busybox\n' >"$root/etc/os-release"
}

copy_host_file() {
  local src=$1 root=$2
  mkdir -p "$root$(dirname "$src")"
  cp -L "$src" "$root$src"
}

add_git() {
  local root=$1 file link
  mkdir -p "$root$GIT_CORE" "$root/usr/share/git-core"
  while read -r file; do
    [[ "$file" == "$GIT_TEMPLATES"/* ]] || copy_host_file "$file" "$root"
  done < <(git_input_files)
  # One git binary, hard-linked into the exec path, as Debian's package does.
  ln "$root/usr/bin/git" "$root$GIT_CORE/git"
  while read -r link; do
    ln -s "$(readlink "$GIT_CORE/$link")" "$root$GIT_CORE/$link"
  done < <(find "$GIT_CORE" -maxdepth 1 -type l -printf '%f\n')
  for link in git-upload-pack git-receive-pack git-upload-archive; do
    ln -s git "$root/usr/bin/$link"
  done
  if [[ -d "$GIT_TEMPLATES" ]]; then cp -a "$GIT_TEMPLATES" "$root/usr/share/git-core/"; fi
  # Workspaces are often bind-mounted with another owner; a CI clone image must not refuse them.
  printf '[safe]\n\tdirectory = *\n' >"$root/etc/gitconfig"
  sed -i 's/^NAME=.*/NAME="Sluice git"/; s/^ID=.*/ID=sluice-git/' "$root/etc/os-release"
}

import_root() {
  local root=$1 image=$2 hash=$3 old_id
  old_id=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  tar --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 -C "$root" -cf - . |
    docker import \
      --change "LABEL $LABEL=$hash" \
      --change "LABEL org.opencontainers.image.title=$image" \
      --change "ENV PATH=$IMAGE_PATH_ENV" \
      --change 'CMD ["/bin/sh"]' \
      - "$image" >/dev/null || die "docker import of $image failed" "check the engine with: docker info"
  # The previous build is now untagged; drop it unless a container or another tag still uses it.
  if [[ -n "$old_id" ]]; then docker image rm "$old_id" >/dev/null 2>&1 || true; fi
}

build_image() {
  local image=$1 hash
  local inputs=(/bin/busybox)
  if [[ "$image" == "$GIT_IMAGE" ]]; then mapfile -t -O 1 inputs < <(git_input_files); fi
  hash=$(inputs_hash "$image" "${inputs[@]}")
  if [[ "$(current_label "$image")" == "$hash" ]]; then
    log "$image up to date"
  else
    log "building $image ..."
    local root="$WORK_DIR/${image//[\/:]/-}"
    make_busybox_root "$root"
    if [[ "$image" == "$GIT_IMAGE" ]]; then add_git "$root"; fi
    import_root "$root" "$image" "$hash"
    log "built $image ($(docker image inspect --format '{{.Size}}' "$image") bytes)"
  fi
  if [[ -n "$REGISTRY" ]]; then
    docker tag "$image" "$REGISTRY/$image"
    log "tagged $REGISTRY/$image"
  fi
}

main() {
  parse_args "$@"
  check_docker
  check_busybox
  if [[ "$ONLY" != busybox ]]; then check_git; fi
  # Test files run in parallel and may all call this script; build one at a time.
  exec 9>"${TMPDIR:-/tmp}/sluice-build-local.lock"
  flock 9
  WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-images.XXXXXX")
  trap 'rm -rf "$WORK_DIR"' EXIT
  if [[ "$ONLY" != git ]]; then build_image "$BUSYBOX_IMAGE"; fi
  if [[ "$ONLY" != busybox ]]; then build_image "$GIT_IMAGE"; fi
}

main "$@"
