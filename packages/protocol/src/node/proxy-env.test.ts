import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proxyUrlFor } from './proxy-env.js';

const PROXY = 'http://proxy.corp:3128';

test('the proxy of the server scheme is used, upper-case names first', () => {
  const env = {
    HTTPS_PROXY: PROXY,
    https_proxy: 'http://lower:1',
    HTTP_PROXY: 'http://plain:8080',
  };
  assert.equal(proxyUrlFor('https://api.cluster.example:6443', env), PROXY);
  assert.equal(proxyUrlFor('http://api.cluster.example:8080', env), 'http://plain:8080');
  assert.equal(
    proxyUrlFor('https://api.example', { https_proxy: 'http://lower:1' }),
    'http://lower:1',
  );
  assert.equal(proxyUrlFor('https://api.example', { HTTP_PROXY: PROXY }), undefined);
  assert.equal(proxyUrlFor('https://api.example', { HTTPS_PROXY: '  ' }), undefined);
  assert.equal(proxyUrlFor('https://api.example', {}), undefined);
});

test('a proxy without a scheme is taken as http, as Go does', () => {
  assert.equal(proxyUrlFor('https://api.example', { HTTPS_PROXY: 'proxy.corp:3128' }), PROXY);
  assert.equal(
    proxyUrlFor('https://api.example', { HTTPS_PROXY: 'socks5://gw:1080' }),
    'socks5://gw:1080',
  );
});

test('loopback API servers are never proxied', () => {
  const env = { HTTPS_PROXY: PROXY };
  for (const server of ['https://127.0.0.1:6443', 'https://localhost:6443', 'https://[::1]:6443']) {
    assert.equal(proxyUrlFor(server, env), undefined, server);
  }
});

test('NO_PROXY host names match the host and its subdomains; a leading dot only subdomains', () => {
  const cases: [string, string, boolean][] = [
    ['cluster.example', 'https://cluster.example', false],
    ['cluster.example', 'https://api.cluster.example', false],
    ['cluster.example', 'https://notcluster.example', true],
    ['.cluster.example', 'https://cluster.example', true],
    ['.cluster.example', 'https://api.cluster.example', false],
    ['*.cluster.example', 'https://api.cluster.example', false],
    ['API.Cluster.Example', 'https://api.cluster.example', false],
    ['*', 'https://anything.example', false],
    ['other.example, api.cluster.example ', 'https://api.cluster.example', false],
    ['', 'https://api.cluster.example', true],
  ];
  for (const [noProxy, server, proxied] of cases) {
    const result = proxyUrlFor(server, { HTTPS_PROXY: PROXY, NO_PROXY: noProxy });
    assert.equal(result !== undefined, proxied, `NO_PROXY=${noProxy} ${server}`);
  }
});

test('NO_PROXY IP addresses, CIDR ranges and ports', () => {
  const cases: [string, string, boolean][] = [
    ['10.96.0.1', 'https://10.96.0.1:443', false],
    ['10.96.0.0/12', 'https://10.100.3.4', false],
    ['10.96.0.0/12', 'https://10.112.0.1', true],
    ['fd00::/8', 'https://[fd00::1]:6443', false],
    ['10.96.0.0/12', 'https://api.cluster.example', true],
    ['api.cluster.example:6443', 'https://api.cluster.example:6443', false],
    ['api.cluster.example:6443', 'https://api.cluster.example', true],
    ['api.cluster.example:443', 'https://api.cluster.example', false],
    ['[fd00::1]:6443', 'https://[fd00::1]:6443', false],
    ['10.0.0.0/not-bits', 'https://10.0.0.1', true],
  ];
  for (const [noProxy, server, proxied] of cases) {
    const result = proxyUrlFor(server, { HTTPS_PROXY: PROXY, no_proxy: noProxy });
    assert.equal(result !== undefined, proxied, `NO_PROXY=${noProxy} ${server}`);
  }
});

test('a server that is not a URL is connected directly', () => {
  assert.equal(proxyUrlFor('not a url', { HTTPS_PROXY: PROXY }), undefined);
});
