#!/bin/sh
# A tiny key-value database over HTTP: POST /cgi-bin/kv?key=value stores, GET /cgi-bin/kv?key reads.
echo 'Content-Type: text/plain'
echo
key=${QUERY_STRING%%=*}
case "$key" in *[!a-z0-9_]*|'') echo "bad key"; exit 0 ;; esac
if [ "$REQUEST_METHOD" = POST ]; then
  echo "${QUERY_STRING#*=}" > "/data/$key"
  echo stored
elif [ -f "/data/$key" ]; then
  cat "/data/$key"
else
  echo missing
fi
