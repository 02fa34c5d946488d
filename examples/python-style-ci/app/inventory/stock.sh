#!/bin/sh
# inventory.stock: how many items are left after an order.
remaining() { [ "$2" -le "$1" ] || { echo "not enough stock" >&2; return 1; }; echo $(($1 - $2)); }
