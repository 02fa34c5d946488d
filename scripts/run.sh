#!/usr/bin/env bash
# The README's run command: sets up what it needs, then starts Sluice on this machine with
# `sluice up --demo` (control plane, local runtime and agent in one process), which runs a demo
# build, prints its log as it is written, and keeps serving until Ctrl-C. Its data stays in
# .sluice/ (git-ignored), so a second run keeps the admin token. Extra arguments go to
# `sluice up` (e.g. --port 0 when 8080 is taken).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/setup.sh
. scripts/lib/setup.sh
sluice_setup
sluice_step "sluice up --demo (Ctrl-C stops it)"
exec node apps/cli/bin/sluice.js up --demo --data-dir .sluice "$@"
