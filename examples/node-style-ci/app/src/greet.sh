#!/bin/sh
# The "application": greets whoever is named, or the world.
echo "Hello, ${1:-world}!"
