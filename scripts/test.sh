#!/usr/bin/env bash
# The README's test command: sets up what it needs, then runs every check and test tier
# (format, lint, unit, integration, end-to-end, kube: a real single-node Kubernetes) and closes
# with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/setup.sh
. scripts/lib/setup.sh
sluice_setup --test-services
sluice_prepare_kubernetes
sluice_step "format and lint"
npm run --silent format:check
npm run --silent lint
sluice_step "tests"
node scripts/run-tests.mjs unit int e2e kube
