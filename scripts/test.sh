#!/usr/bin/env bash
# The README's test command: sets up what it needs, then runs every check and test tier
# (format, lint, unit, integration, end-to-end, kube: a real single-node Kubernetes) and closes
# with "N passed, N failed". The Kubernetes test cluster's set-up (about 14 minutes on a fresh
# machine, seconds once cached) runs in the background beside the unit and int tiers.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/setup.sh
. scripts/lib/setup.sh
sluice_setup --test-services
sluice_step "format and lint"
npm run --silent format:check
npm run --silent lint
sluice_step "tests"
node scripts/run-tests.mjs --background-setup="$SLUICE_PREPARE_KUBERNETES" unit int e2e kube
