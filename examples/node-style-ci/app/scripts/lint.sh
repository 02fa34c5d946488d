#!/bin/sh
# The linter: every shell file starts with a shebang.
set -e
for f in src/*.sh test/*.sh scripts/*.sh; do
  head -n 1 "$f" | grep -q '^#!/bin/sh' || { echo "lint: $f has no shebang"; exit 1; }
done
echo "lint: ok"
