#!/bin/sh
# The build: copies the sources into dist/, stamped with the version.
set -e
rm -rf dist && mkdir -p dist
cp src/greet.sh dist/greet
echo "$1" > dist/VERSION
echo "built dist/ for version $1"
