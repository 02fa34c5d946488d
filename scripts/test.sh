#!/usr/bin/env bash
# The README's test command: sets up what it needs, then runs every check and test tier
# (format, lint, unit, integration, end-to-end, kube: a real single-node Kubernetes) side by side
# (scripts/run-tests.mjs) and closes with "N passed, N failed". The Kubernetes test cluster's
# set-up (about 10 minutes on a fresh machine, seconds once cached) starts in the background
# once the TypeScript is built; only the kube tier waits for it. Format and lint run as one job
# beside the unit tier, cached on the machine (scripts/check-code.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
SLUICE_TEST_STARTED_AT=$(date +%s)
export SLUICE_TEST_STARTED_AT
# shellcheck source=lib/setup.sh
. scripts/lib/setup.sh
sluice_node_deps
sluice_build
sluice_start_kubernetes_setup
sluice_prepare_docker --test-services
sluice_prepare_chromium
sluice_step "tests (format and lint beside the unit tier)"
# Niced: on a fresh machine the Kubernetes build beside them comes first (the kube tier waits).
nice -n 10 node scripts/run-tests.mjs --background-setup="$SLUICE_FOLLOW_KUBERNETES_SETUP" \
  --beside="node scripts/check-code.mjs" unit int e2e kube
