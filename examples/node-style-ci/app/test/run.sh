#!/bin/sh
# The test suite: each case compares the app's output with what it should be.
set -e
passed=0
check() {
  actual=$(sh src/greet.sh "$1")
  if [ "$actual" != "$2" ]; then echo "FAIL: greet '$1' said '$actual', expected '$2'"; exit 1; fi
  passed=$((passed + 1))
}
check "" "Hello, world!"
check "Ada" "Hello, Ada!"
echo "$passed tests passed (runtime $RUNTIME_VERSION)"
