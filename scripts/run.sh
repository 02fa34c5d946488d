#!/usr/bin/env bash
# The README's run command: sets up what it needs, then runs the example pipelines with
# `sluice run` on the local Docker engine and prints their logs.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/setup.sh
. scripts/lib/setup.sh
sluice_setup
node scripts/run-examples.mjs
