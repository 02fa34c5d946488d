#!/usr/bin/env bash
# Builds Sluice's local images with `docker import` from root filesystems assembled on this host.
# Nothing is pulled: the machine can reach npm and Debian's apt mirrors, but no image registry.
#
#   sluice/busybox:1  Debian's busybox-static with its applet links, /tmp, /etc/passwd and group
#   sluice/git:1      the busybox base plus the host's git, the git-core helpers for clone, fetch
#                     and checkout over file://, http(s):// and ssh:// (OpenSSH's client), CA
#                     certificates and every shared library they need (found with ldd, copied
#                     with the dynamic loader)
#   sluice/http:1     the busybox base plus the host's curl and jq, CA certificates and their
#                     shared libraries: the HTTP step types (slack-message-sender, github-pr,
#                     codecov-reporter, codefresh-run, bump-build-number) build JSON with jq
#   sluice/kubectl:1  the busybox base plus Debian's kubectl (package kubernetes-client, 1.20,
#                     unpacked, not installed on the host) and
#                     CA certificates: the kubectl-apply step type's image, and any step that
#                     runs kubectl against the build's clusters. Built only when asked for
#                     (--only kubectl): most machines never need it
#
# Each image carries the label io.sluice.image-hash: the sha256 of this script and of the host
# files that go into it (binaries, libraries, certificates) plus their versions. An image whose
# label matches is left alone, so a second run only inspects and finishes in well under 2 s.
#
# Usage: images/build-local.sh [--only busybox|git|http|kubectl] [--registry HOST[:PORT]] [--force]
#   --only NAME          build just one image (busybox, git, http, kubectl, or sluice/NAME:TAG)
#   --registry HOST[:P]  also tag each image as HOST[:P]/sluice/NAME:TAG (nothing is pushed)
#   --force              rebuild even when the label matches
set -euo pipefail

readonly SCRIPT_PATH=$(readlink -f "${BASH_SOURCE[0]}")
# shellcheck source-path=SCRIPTDIR source=lib/image-build.sh
source "$(dirname "$SCRIPT_PATH")/lib/image-build.sh"
readonly BUSYBOX_IMAGE=sluice/busybox:1
readonly GIT_IMAGE=sluice/git:1
readonly HTTP_IMAGE=sluice/http:1
readonly KUBECTL_IMAGE=sluice/kubectl:1
readonly CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
readonly GIT_CORE=/usr/lib/git-core
readonly GIT_TEMPLATES=/usr/share/git-core/templates

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
  [[ -x /usr/bin/ssh ]] || apt_install openssh-client
  [[ -f "$CA_BUNDLE" ]] || apt_install ca-certificates
  [[ -x /usr/bin/git && -x /usr/bin/ssh && -f "$CA_BUNDLE" ]] ||
    die "git, ssh or $CA_BUNDLE is still missing" "apt-get install -y git openssh-client ca-certificates"
}

check_http() {
  [[ -x /usr/bin/curl ]] || apt_install curl
  [[ -x /usr/bin/jq ]] || apt_install jq
  [[ -f "$CA_BUNDLE" ]] || apt_install ca-certificates
  [[ -x /usr/bin/curl && -x /usr/bin/jq && -f "$CA_BUNDLE" ]] ||
    die "curl, jq or $CA_BUNDLE is still missing" "apt-get install -y curl jq ca-certificates"
}

# Debian's kubectl, from its package unpacked here rather than installed: a host may have
# another kubectl at /usr/bin/kubectl (a cloud SDK's), which the package would collide with.
KUBECTL_BIN=""
fetch_kubectl() {
  local dir="$WORK_DIR/kubernetes-client" deb
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! (cd "$dir" && apt-get download kubernetes-client >/dev/null 2>&1); then
    apt-get update >/dev/null 2>&1 || die "apt-get update failed" "check the apt mirrors, then rerun $0"
    (cd "$dir" && apt-get download kubernetes-client >/dev/null) ||
      die "apt-get download kubernetes-client failed" "check that Debian's apt sources are configured"
  fi
  deb=$(find "$dir" -maxdepth 1 -name 'kubernetes-client_*.deb' | head -n 1)
  dpkg-deb -x "$deb" "$dir/root"
  KUBECTL_BIN="$dir/root/usr/bin/kubectl"
  [[ -x "$KUBECTL_BIN" ]] || die "the kubernetes-client package holds no usr/bin/kubectl" "check $deb"
  [[ -f "$CA_BUNDLE" ]] || apt_install ca-certificates
}

kubectl_input_files() {
  printf '%s\n' "$KUBECTL_BIN"
  # Go builds it statically unless cgo was on: only a dynamic executable has libraries to copy.
  if ldd "$KUBECTL_BIN" >/dev/null 2>&1; then shared_libraries "$KUBECTL_BIN"; fi
  printf '%s\n' "$CA_BUNDLE"
}

http_input_files() {
  printf '%s\n' /usr/bin/curl /usr/bin/jq
  shared_libraries /usr/bin/curl /usr/bin/jq
  printf '%s\n' "$CA_BUNDLE"
}

# Every ELF file git needs inside the image: the binary plus the helpers that are real files.
# Helpers beyond the builtins that a clone or fetch may exec are the http(s) transport (ELF),
# OpenSSH's client for ssh:// and scp-style URLs (git integrations with a key), and the shell
# scripts `git submodule` still relies on (git_input_files); builtins (upload-pack,
# receive-pack, ...) are links to git.
git_elf_files() {
  printf '%s\n' /usr/bin/git /usr/bin/ssh
  local helper
  for helper in git-remote-http git-sh-i18n--envsubst; do
    [[ -f "$GIT_CORE/$helper" ]] && printf '%s\n' "$GIT_CORE/$helper"
  done
  return 0
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
    sha256sum < "$IMAGE_LIB_PATH"
    printf 'image=%s\n' "$image"
    /bin/busybox 2>/dev/null | head -n 1 || true
    if [[ "$image" == "$GIT_IMAGE" ]]; then
      /usr/bin/git --version
      find "$GIT_CORE" -maxdepth 1 -type l -printf '%f -> %l\n' | sort
    fi
    if [[ "$image" == "$HTTP_IMAGE" ]]; then
      /usr/bin/curl --version | head -n 1
      /usr/bin/jq --version
    fi
    if [[ "$image" == "$KUBECTL_IMAGE" ]]; then "$KUBECTL_BIN" version --client --short 2>/dev/null || true; fi
    # Files unpacked under this run's work directory are named without it.
    sha256sum "$@" | sed "s#$WORK_DIR##"
  } | sha256sum | cut -d ' ' -f 1
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

add_kubectl() {
  local root=$1 file
  install -D -m 0755 "$KUBECTL_BIN" "$root/usr/bin/kubectl"
  while read -r file; do
    [[ "$file" == "$KUBECTL_BIN" ]] || copy_host_file "$file" "$root"
  done < <(kubectl_input_files)
  sed -i 's/^NAME=.*/NAME="Sluice kubectl"/; s/^ID=.*/ID=sluice-kubectl/' "$root/etc/os-release"
}

add_http() {
  local root=$1 file
  while read -r file; do copy_host_file "$file" "$root"; done < <(http_input_files)
  sed -i 's/^NAME=.*/NAME="Sluice http"/; s/^ID=.*/ID=sluice-http/' "$root/etc/os-release"
}

build_image() {
  local image=$1 hash
  local inputs=(/bin/busybox)
  if [[ "$image" == "$GIT_IMAGE" ]]; then mapfile -t -O 1 inputs < <(git_input_files); fi
  if [[ "$image" == "$HTTP_IMAGE" ]]; then mapfile -t -O 1 inputs < <(http_input_files); fi
  if [[ "$image" == "$KUBECTL_IMAGE" ]]; then mapfile -t -O 1 inputs < <(kubectl_input_files); fi
  hash=$(inputs_hash "$image" "${inputs[@]}")
  if up_to_date "$image" "$hash"; then
    log "$image up to date"
  else
    log "building $image ..."
    local root="$WORK_DIR/${image//[\/:]/-}"
    make_busybox_root "$root"
    if [[ "$image" == "$GIT_IMAGE" ]]; then add_git "$root"; fi
    if [[ "$image" == "$HTTP_IMAGE" ]]; then add_http "$root"; fi
    if [[ "$image" == "$KUBECTL_IMAGE" ]]; then add_kubectl "$root"; fi
    import_root "$root" "$image" "$hash" --change 'CMD ["/bin/sh"]'
  fi
  tag_for_registry "$image"
}

main() {
  parse_image_args "busybox git http kubectl" "$@"
  check_docker
  # Before the checks: test files run side by side and each may call this script, and the
  # checks' apt-get installs would fight over dpkg's lock.
  start_build sluice-build-local
  check_busybox
  if wanted git; then check_git; fi
  if wanted http; then check_http; fi
  # Only when asked for by name: its package is large and few machines need it.
  if [[ "$ONLY" == kubectl ]]; then fetch_kubectl; fi
  if wanted busybox; then build_image "$BUSYBOX_IMAGE"; fi
  if wanted git; then build_image "$GIT_IMAGE"; fi
  if wanted http; then build_image "$HTTP_IMAGE"; fi
  if [[ "$ONLY" == kubectl ]]; then build_image "$KUBECTL_IMAGE"; fi
}

main "$@"
