#!/bin/sh
# Integration tests against the database service: what setup seeded is there, and writes persist.
set -e
url="http://$DB_HOST:5984/cgi-bin/kv"
[ "$(wget -q -O- "$url?customer_1")" = ada.lovelace ] || { echo "FAIL: seed data missing"; exit 1; }
wget -q -O- --post-data= "$url?order_77=shipped" >/dev/null
[ "$(wget -q -O- "$url?order_77")" = shipped ] || { echo "FAIL: write not read back"; exit 1; }
[ "$(wget -q -O- "$url?no_such_key")" = missing ] || { echo "FAIL: missing key"; exit 1; }
echo "3 integration tests passed against $DB_HOST"
