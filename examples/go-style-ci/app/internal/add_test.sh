#!/bin/sh
# `go test ./...`: the tests of the internal package.
set -e
. ./internal/add.sh
[ "$(add 2 3)" = 5 ] || { echo "--- FAIL: TestAdd"; exit 1; }
[ "$(add -1 1)" = 0 ] || { echo "--- FAIL: TestAddNegative"; exit 1; }
echo "ok  	example.com/sluicectl/internal"
