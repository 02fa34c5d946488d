import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_CREDENTIAL_USES } from '@sluice/pipeline';
import type { CredentialUses } from '@sluice/pipeline';
import {
  clusterWanted,
  credentialWants,
  definitionReaderWants,
  gitIntegrationWanted,
  registryWanted,
} from './engine-grants.js';
import type { BuildScope } from './engine-grants.js';

const scope: BuildScope = {
  buildId: 'bld_1',
  pipelineName: 'app',
  variables: { TARGET: 'ecr', CONTEXT: 'eu' },
  facts: { branch: 'main' },
};

function uses(fields: Partial<CredentialUses>): CredentialUses {
  return { ...NO_CREDENTIAL_USES, ...fields };
}

const registry = (name: string, domain: string, isDefault = false) => ({
  name,
  domain,
  isDefault,
});

test('registries: named (by name or domain, variables resolved), the default, image hosts', () => {
  const wants = credentialWants(
    uses({
      registries: ['${{TARGET}}', 'quay.io', '${{MADE_BY_A_STEP}}'],
      images: ['alpine', 'localhost:5000/tool', 'ghcr.io/${{CF_BRANCH}}/img'],
    }),
    scope,
  ).registries;
  const given = [
    registry('ecr', 'aws.example.com'),
    registry('quay', 'quay.io'),
    registry('hub', 'index.docker.io'),
    registry('local', 'localhost:5000'),
    registry('ghcr', 'ghcr.io'),
    registry('mirror', 'mirror.example.com', true),
    registry('other', 'other.example.com'),
  ].filter((r) => registryWanted(wants, r));
  assert.deepEqual(
    given.map((r) => r.name),
    ['ecr', 'quay', 'hub', 'local', 'ghcr'],
    'no default is pushed to, and a name a step makes names nothing',
  );
  const pushing = credentialWants(uses({ defaultRegistry: true }), scope).registries;
  assert.equal(registryWanted(pushing, registry('mirror', 'mirror.example.com', true)), true);
  assert.equal(registryWanted(pushing, registry('other', 'other.example.com')), false);
});

test("git integrations: named, and for a clone naming none the trigger's, else the default", () => {
  const named = credentialWants(uses({ gitIntegrations: ['gitea'] }), scope).gitIntegrations;
  assert.equal(gitIntegrationWanted(named, { name: 'gitea', isDefault: false }, undefined), true);
  assert.equal(gitIntegrationWanted(named, { name: 'main', isDefault: true }, undefined), false);

  const unnamed = credentialWants(uses({ defaultGitIntegration: true }), scope).gitIntegrations;
  assert.equal(gitIntegrationWanted(unnamed, { name: 'main', isDefault: true }, undefined), true);
  assert.equal(gitIntegrationWanted(unnamed, { name: 'main', isDefault: true }, 'hook'), false);
  assert.equal(gitIntegrationWanted(unnamed, { name: 'hook', isDefault: false }, 'hook'), true);

  const reader = definitionReaderWants('gitlab').gitIntegrations;
  assert.equal(gitIntegrationWanted(reader, { name: 'gitlab', isDefault: false }, 'x'), true);
  assert.equal(gitIntegrationWanted(reader, { name: 'main', isDefault: true }, undefined), false);
  const readerDefault = definitionReaderWants(null).gitIntegrations;
  assert.equal(
    gitIntegrationWanted(readerDefault, { name: 'main', isDefault: true }, undefined),
    true,
  );
});

test('clusters: named, more by SLUICE_CLUSTERS, every one with SLUICE_CLUSTERS=*', () => {
  const named = credentialWants(uses({ clusters: ['prod', '${{CONTEXT}}'] }), scope).clusters;
  assert.deepEqual(
    ['prod', 'eu', 'staging'].map((name) => clusterWanted(named, name)),
    [true, true, false],
  );
  const more = credentialWants(uses({ clusters: ['prod'] }), {
    ...scope,
    variables: { SLUICE_CLUSTERS: 'staging, qa' },
  }).clusters;
  assert.deepEqual(
    ['prod', 'staging', 'qa', 'other'].map((name) => clusterWanted(more, name)),
    [true, true, true, false],
  );
  const all = credentialWants(NO_CREDENTIAL_USES, {
    ...scope,
    variables: { SLUICE_CLUSTERS: '*' },
  }).clusters;
  assert.equal(all, 'all');
  assert.equal(clusterWanted(all, 'anything'), true);
});
