#!/bin/sh
# sluicectl: prints its version, or adds two numbers with the internal package.
. /usr/local/lib/sluicectl/add.sh
case "$1" in
  --version) echo "sluicectl $VERSION (commit $COMMIT)" ;;
  add) add "$2" "$3" ;;
  *) echo "usage: sluicectl --version | add A B" >&2; exit 2 ;;
esac
