#!/usr/bin/env bash
# Builds the images Sluice runs on Kubernetes with `docker import` from root filesystems made on
# this host, so no registry is needed (the test cluster imports them into its containerd; an
# air-gapped cluster gets them from your own registry with --registry). The Dockerfiles next to
# this script describe the same images for machines that can pull base images.
#
#   sluice/engine:1   the `sluice` CLI bundled (images/engine/bundle.sh: an entry and its chunks) on this
#                     host's Node binary plus the shared libraries ldd finds for it, over the
#                     sluice/busybox:1 root (a shell and the usual tools), and Debian's docker.io
#                     CLI, through which the engine runs BuildKit builds; the bundle carries the
#                     built web UI (web/), so the server chart's control plane serves it at /,
#                     and sluice/busybox:1 and sluice/git:1 (images/), which the engine loads
#                     onto a build's daemon that lacks them (git when a clone needs it): builds
#                     need no registry for them
#   sluice/dind:1     Debian bookworm (debootstrap --variant=minbase) with docker.io, iptables,
#                     tini, openssl and CA certificates; images/dind/dind-entrypoint.sh serves
#                     the Docker API on :1300 over mutual TLS
#   sluice/pause:1    images/pause/pause.c compiled static: the pod sandbox image
#   sluice/busybox:1  the small test image, built by images/build-local.sh
#
# Each image carries the label io.sluice.image-hash (this script, its inputs and their
# versions); an image whose label matches is left alone, so a second run takes seconds.
# The dind root filesystem comes from the Debian mirror in this machine's apt sources.
#
# Usage: images/build-cluster-images.sh [--only NAME] [--registry HOST[:PORT]] [--force]
#   --only NAME          build one image: engine, dind, pause or busybox
#   --registry HOST[:P]  also tag each image as HOST[:P]/sluice/NAME:1 (nothing is pushed)
#   --force              rebuild even when the label matches (e.g. for Debian security updates)
set -euo pipefail

readonly SCRIPT_PATH=$(readlink -f "${BASH_SOURCE[0]}")
# shellcheck source-path=SCRIPTDIR source=lib/image-build.sh
source "$(dirname "$SCRIPT_PATH")/lib/image-build.sh"
readonly HERE=$(dirname "$SCRIPT_PATH")
readonly ROOT=$(dirname "$HERE")
readonly SUITE=bookworm
readonly DIND_PACKAGES=docker.io,iptables,ca-certificates,tini,openssl,procps,hostname

ensure_tool() {
  command -v "$1" >/dev/null 2>&1 || apt_install "$2"
}

# "sha256 name" per file, repository files named relative to the checkout so that every clone
# of the same commit computes the same hash.
file_hashes() {
  local file name
  for file; do
    name=${file#"$ROOT"/}
    printf '%s %s\n' "$(sha256sum <"$file" | cut -d ' ' -f 1)" "${name#"$WORK_DIR"/}"
  done
}

# sha256 over the scripts, the image name and whatever else the caller pipes in.
inputs_hash() {
  { file_hashes "$SCRIPT_PATH" "$IMAGE_LIB_PATH"; printf 'image=%s\n' "$1"; cat; } | sha256sum | cut -d ' ' -f 1
}

# build-local.sh's image NAME (busybox or git), with this run's registry and --force.
build_local() {
  local args=(--only "$1")
  [[ -n "$REGISTRY" ]] && args+=(--registry "$REGISTRY")
  [[ $FORCE -eq 1 ]] && args+=(--force)
  bash "$HERE/build-local.sh" "${args[@]}"
}

build_pause() {
  local image=sluice/pause:1 hash
  ensure_tool gcc gcc
  hash=$(inputs_hash "$image" < <(file_hashes "$HERE/pause/pause.c"; gcc --version | head -n 1))
  if up_to_date "$image" "$hash"; then log "$image up to date"; tag_for_registry "$image"; return; fi
  log "building $image ..."
  local root=$WORK_DIR/pause
  mkdir -p "$root"
  local compile=(gcc -Os -static -Wall -Wextra -o "$root/pause" "$HERE/pause/pause.c")
  if ! "${compile[@]}" 2>/dev/null; then
    # A static link needs libc.a, which only libc6-dev ships.
    apt_install libc6-dev
    "${compile[@]}" || die "gcc failed on pause.c" "apt-get install -y gcc libc6-dev"
  fi
  strip "$root/pause"
  import_root "$root" "$image" "$hash" --change 'ENTRYPOINT ["/pause"]'
  tag_for_registry "$image"
}

build_engine() {
  local image=sluice/engine:1 node hash bundle=$WORK_DIR/bundle
  node=$(command -v node) || die "node is not installed" "install Node 20 (see .nvmrc)"
  node=$(readlink -f "$node")
  rm -rf "$bundle"
  bash "$HERE/engine/bundle.sh" "$bundle" || die "bundling the CLI failed" "npm ci && npm run build, then rerun"
  # Debian's docker.io CLI: BuildKit builds run through it (docs/adr/0002-buildkit-builds-through-the-docker-cli.md).
  local docker_cli=/usr/bin/docker
  [[ -x $docker_cli ]] || apt_install docker.io
  [[ -x $docker_cli ]] || die "$docker_cli is still missing after installing docker.io" "apt-get install -y docker.io"
  local libs=()
  mapfile -t libs < <(shared_libraries "$node"; shared_libraries "$docker_cli")
  local files=()
  mapfile -t files < <(find "$bundle" -type f | sort)
  hash=$(inputs_hash "$image" < <(file_hashes "${files[@]}" "$HERE/engine/sluice" "$HERE/engine/bundle.sh" "$node" "$docker_cli" "${libs[@]}"
    docker image inspect --format '{{.Id}}' sluice/busybox:1 sluice/git:1))
  if up_to_date "$image" "$hash"; then log "$image up to date"; tag_for_registry "$image"; return; fi
  log "building $image (Node $("$node" --version) from this host, CLI bundle $(du -sb "$bundle" | cut -f1) bytes in ${#files[@]} files) ..."
  local root=$WORK_DIR/engine container file
  mkdir -p "$root"
  container=$(docker create sluice/busybox:1 /bin/true)
  docker export "$container" | tar -x -C "$root"
  docker rm "$container" >/dev/null
  for file in "${libs[@]}" /etc/ssl/certs/ca-certificates.crt; do
    [[ -f "$file" ]] || continue
    mkdir -p "$root$(dirname "$file")"
    cp -L "$file" "$root$file"
  done
  install -D -m 0755 "$node" "$root/usr/local/bin/node"
  install -D -m 0755 "$docker_cli" "$root/usr/bin/docker"
  # The bundle's tree as it is: the web UI is in its web/ directory.
  install -d "$root/usr/local/lib/sluice"
  cp -R "$bundle/." "$root/usr/local/lib/sluice/"
  # The images the engine loads onto a build's daemon that lacks them (a new volume on a cluster
  # that cannot pull): apps/engine/src/containers/carried-images.ts reads this index.
  install -d "$root/usr/local/lib/sluice/images"
  docker save -o "$root/usr/local/lib/sluice/images/sluice-busybox-1.tar" sluice/busybox:1
  docker save -o "$root/usr/local/lib/sluice/images/sluice-git-1.tar" sluice/git:1
  printf '%s\n' '{ "images": { "sluice/busybox:1": "sluice-busybox-1.tar" },' \
    '  "onDemand": { "sluice/git:1": "sluice-git-1.tar" } }' >"$root/usr/local/lib/sluice/images/index.json"
  chmod -R u=rwX,go=rX "$root/usr/local/lib/sluice"
  install -D -m 0755 "$HERE/engine/sluice" "$root/usr/local/bin/sluice"
  import_root "$root" "$image" "$hash" --change 'ENTRYPOINT ["/usr/local/bin/sluice"]' --change 'CMD ["--help"]'
  tag_for_registry "$image"
}

# The Debian mirror for $SUITE from this machine's apt sources (deb822 first, then one-line).
debian_mirror() {
  local mirror=""
  if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
    mirror=$(awk -v suite="$SUITE" '
      BEGIN { RS = "" }
      {
        types = ""; uris = ""; ok = 0
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          split(lines[i], f, " ")
          if (f[1] == "Types:") types = " " lines[i] " "
          if (f[1] == "URIs:") uris = f[2]
          if (f[1] == "Enabled:" && f[2] == "no") ok = -1
          if (f[1] == "Suites:" && ok == 0) for (j = 2; j in f; j++) if (f[j] == suite) ok = 1
        }
        if (ok == 1 && uris != "" && types ~ / deb /) { print uris; exit }
      }' /etc/apt/sources.list.d/*.sources)
  fi
  if [[ -z "$mirror" && -f /etc/apt/sources.list ]]; then
    mirror=$(sed -E 's/\[[^]]*\]//' /etc/apt/sources.list | awk -v suite="$SUITE" '$1 == "deb" && $3 == suite { print $2; exit }')
  fi
  [[ -n "$mirror" ]] || die "no Debian $SUITE mirror in /etc/apt/sources.list(.d)" "add Debian $SUITE main to the apt sources"
  printf '%s\n' "$mirror"
}

build_dind() {
  local image=sluice/dind:1 hash
  hash=$(inputs_hash "$image" < <(file_hashes "$HERE/dind/dind-entrypoint.sh"; printf '%s %s\n' "$SUITE" "$DIND_PACKAGES"))
  if up_to_date "$image" "$hash"; then log "$image up to date"; tag_for_registry "$image"; return; fi
  [[ $(id -u) -eq 0 ]] || die "debootstrap for $image needs root" "run this script as root"
  ensure_tool debootstrap debootstrap
  local mirror root=$WORK_DIR/dind
  mirror=$(debian_mirror)
  log "building $image: debootstrap $SUITE from $mirror (about a minute) ..."
  debootstrap --variant=minbase --include="$DIND_PACKAGES" "$SUITE" "$root" "$mirror" >"$WORK_DIR/debootstrap.log" 2>&1 || {
    tail -n 20 "$WORK_DIR/debootstrap.log" >&2
    die "debootstrap of $SUITE failed (its log is above)" "check that $mirror is reachable, then rerun"
  }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/*.log "$root"/var/cache/apt/*.bin
  install -D -m 0755 "$HERE/dind/dind-entrypoint.sh" "$root/usr/local/bin/dind-entrypoint"
  import_root "$root" "$image" "$hash" --change 'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/dind-entrypoint"]' \
    --change 'VOLUME /var/lib/docker' --change 'EXPOSE 1300'
  tag_for_registry "$image"
}

main() {
  parse_image_args "engine dind pause busybox" "$@"
  check_docker
  start_build sluice-build-cluster-images
  if wanted busybox || wanted engine; then build_local busybox; fi
  if wanted engine; then build_local git; fi
  if wanted pause; then build_pause; fi
  if wanted engine; then build_engine; fi
  if wanted dind; then build_dind; fi
}

main "$@"
