import { test } from 'node:test';
import assert from 'node:assert/strict';
import { socketPathFor } from './docker-engine.js';

test('socketPathFor maps DOCKER_HOST values to the socket the CLI uses', () => {
  assert.equal(socketPathFor(undefined), '/var/run/docker.sock');
  assert.equal(socketPathFor('unix:///run/user/1000/docker.sock'), '/run/user/1000/docker.sock');
  assert.equal(socketPathFor('tcp://10.0.0.5:2375'), 'tcp://10.0.0.5:2375');
});
