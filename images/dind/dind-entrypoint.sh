#!/bin/sh
# The dind container's entrypoint (run under tini, so every container shim is reaped): issues
# the daemon's server certificate for this pod's IP from the CA mounted at $DIND_CA_DIR
# (ca.crt and ca.key, from a Secret), then runs dockerd on the local socket and on
# tcp://0.0.0.0:$DIND_PORT with TLS client verification: a client without a certificate
# signed by the same CA is refused. Extra arguments go to dockerd.
#
#   DIND_CA_DIR   default /etc/sluice/dind-ca      POD_IP     default: hostname -i
#   DIND_PORT     default 1300                      DIND_TLS_DIR default /run/sluice/dind-tls
set -eu

ca_dir=${DIND_CA_DIR:-/etc/sluice/dind-ca}
tls_dir=${DIND_TLS_DIR:-/run/sluice/dind-tls}
port=${DIND_PORT:-1300}
pod_ip=${POD_IP:-$(hostname -i | awk '{ print $1 }')}

for file in ca.crt ca.key; do
  if [ ! -r "$ca_dir/$file" ]; then
    echo "dind-entrypoint: $ca_dir/$file is missing: mount the dind CA Secret there" >&2
    exit 64
  fi
done

mkdir -p "$tls_dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$tls_dir/key.pem" -out "$tls_dir/cert.pem" -days 30 \
  -subj "/CN=sluice-dind" -CA "$ca_dir/ca.crt" -CAkey "$ca_dir/ca.key" \
  -addext "basicConstraints=critical,CA:FALSE" \
  -addext "keyUsage=critical,digitalSignature,keyEncipherment" \
  -addext "extendedKeyUsage=serverAuth" \
  -addext "subjectAltName=IP:$pod_ip,IP:127.0.0.1,DNS:localhost,DNS:$(hostname)" 2>/dev/null
chmod 600 "$tls_dir/key.pem"
echo "dind-entrypoint: serving the Docker API on $pod_ip:$port with TLS client verification"

exec dockerd \
  --host=unix:///var/run/docker.sock \
  --host="tcp://0.0.0.0:$port" \
  --tlsverify \
  --tlscacert="$ca_dir/ca.crt" \
  --tlscert="$tls_dir/cert.pem" \
  --tlskey="$tls_dir/key.pem" \
  --shutdown-timeout=10 \
  "$@"
