import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseVolume } from './volume-choice.js';
import type { ClaimFacts, VolumeFacts } from './volume-choice.js';

const GI = 1024 ** 3;

function claim(labels: Record<string, string>, extra: Partial<ClaimFacts> = {}): ClaimFacts {
  return {
    namespace: 'ns',
    name: 'pvc-dind-b1',
    uid: 'u1',
    labels,
    selector: ['app', 'account', 'pipeline'],
    sortOrder: ['branch', 'trigger'],
    requestBytes: 10 * GI,
    ...extra,
  };
}

function volume(name: string, labels: Record<string, string>, extra: Partial<VolumeFacts> = {}) {
  return {
    name,
    labels,
    capacityBytes: 10 * GI,
    lastUsedMs: 1000,
    mountCount: 1,
    inUse: false,
    retiring: false,
    node: 'n1',
    ...extra,
  } satisfies VolumeFacts;
}

const base = { app: 'dind', account: 'a1', pipeline: 'p1' };

test('a released volume whose labels match every selector key is reused; another pipeline gets a new one', () => {
  const volumes = [volume('v1', { ...base, branch: 'main' })];
  const same = chooseVolume(claim({ ...base, branch: 'dev' }), volumes);
  assert.equal(same.kind, 'reuse');
  assert.equal(same.kind === 'reuse' && same.volume.name, 'v1');
  const other = chooseVolume(claim({ ...base, pipeline: 'p2' }), volumes);
  assert.deepEqual(other, {
    kind: 'new',
    reason: 'no volume has been made for app=dind,account=a1,pipeline=p2 yet',
  });
});

test('the reuse scopes: account, project, pipeline, pipeline+branch, pipeline+trigger', () => {
  const labels = {
    app: 'dind',
    account: 'a1',
    project: 'pr1',
    pipeline: 'p1',
    branch: 'main',
    trigger: 't1',
  };
  const volumes = [volume('v1', labels)];
  const scopes: Array<[string[], Record<string, string>, boolean]> = [
    [['app', 'account'], { ...labels, project: 'pr2', pipeline: 'p9' }, true],
    [['app', 'account'], { ...labels, account: 'a2' }, false],
    [['app', 'account', 'project'], { ...labels, pipeline: 'p9' }, true],
    [['app', 'account', 'project'], { ...labels, project: 'pr2' }, false],
    [['app', 'account', 'pipeline'], { ...labels, branch: 'dev' }, true],
    [['app', 'account', 'pipeline', 'branch'], { ...labels, branch: 'dev' }, false],
    [['app', 'account', 'pipeline', 'branch'], { ...labels, trigger: 't2' }, true],
    [['app', 'account', 'pipeline', 'trigger'], { ...labels, trigger: 't2' }, false],
  ];
  for (const [selector, claimLabels, reused] of scopes)
    assert.equal(
      chooseVolume(claim(claimLabels, { selector }), volumes).kind,
      reused ? 'reuse' : 'new',
      `${selector.join(',')} with ${JSON.stringify(claimLabels)}`,
    );
});

test('sort order: a match on the first key beats any later ones, then the most recently used', () => {
  const volumes = [
    volume('trigger-only', { ...base, branch: 'x', trigger: 't1' }, { lastUsedMs: 9000 }),
    volume('branch-old', { ...base, branch: 'main', trigger: 'x' }, { lastUsedMs: 1000 }),
    volume('branch-new', { ...base, branch: 'main', trigger: 'x' }, { lastUsedMs: 2000 }),
    volume('both', { ...base, branch: 'main', trigger: 't1' }, { lastUsedMs: 10 }),
  ];
  const pick = (vs: VolumeFacts[]) => {
    const choice = chooseVolume(claim({ ...base, branch: 'main', trigger: 't1' }), vs);
    return choice.kind === 'reuse' ? choice.volume.name : choice.kind;
  };
  assert.equal(pick(volumes), 'both');
  assert.equal(pick(volumes.slice(0, 3)), 'branch-new');
  assert.equal(pick(volumes.slice(0, 1)), 'trigger-only');
});

test('volumes in use, being retired, too small or on another node are never chosen', () => {
  const c = claim(base, { node: 'n1' });
  for (const [extra, reason] of [
    [
      { inUse: true, claim: 'pvc-dind-b0' },
      'every volume for app=dind,account=a1,pipeline=p1 is in use by another build (claim pvc-dind-b0)',
    ],
    [{ retiring: true }, 'the volumes for app=dind,account=a1,pipeline=p1 are being retired'],
    [{ capacityBytes: 5 * GI }, 'the matching volumes are too small'],
    [{ node: 'n2' }, 'no matching volume on node n1'],
  ] as const)
    assert.deepEqual(chooseVolume(c, [volume('v', base, extra)]), { kind: 'new', reason });
  assert.equal(chooseVolume(claim(base), [volume('v', base, { node: 'n2' })]).kind, 'reuse');
});

test('a key absent on both the claim and the volume counts as equal', () => {
  const c = claim({ app: 'dind', account: 'a1' });
  assert.equal(chooseVolume(c, [volume('v', { app: 'dind', account: 'a1' })]).kind, 'reuse');
});

test('back to back: a claim waits for the matching volume whose build is over, not for one in use', () => {
  const c = claim(base, { node: 'n1' });
  const ending = volume('warm', base, { inUse: true, releasing: true, claim: 'pvc-dind-b0' });
  assert.deepEqual(chooseVolume(c, [ending]), {
    kind: 'wait',
    volume: ending,
    reason: 'volume warm is being released by claim pvc-dind-b0, whose build is over',
  });
  // A free match is taken at once; a releasing one of another pipeline, too small or on
  // another node is not worth the wait.
  assert.equal(chooseVolume(c, [ending, volume('free', base)]).kind, 'reuse');
  for (const extra of [
    { labels: { ...base, pipeline: 'p2' } },
    { capacityBytes: 5 * GI },
    { node: 'n2' },
    { retiring: true },
  ])
    assert.equal(chooseVolume(c, [{ ...ending, ...extra }]).kind, 'new', JSON.stringify(extra));
});

test('a preferred volume comes before a better-ranked one, is waited for while its build lets it go, and is never taken against the rules', () => {
  const warm = volume('warm', { ...base, branch: 'dev', trigger: 't1' }, { lastUsedMs: 500 });
  const ranked = volume('ranked', { ...base, branch: 'main' }, { lastUsedMs: 2000 });
  const prefers = claim({ ...base, branch: 'main', trigger: 't1' }, { prefer: 'warm' });
  const taken = chooseVolume(prefers, [ranked, warm]);
  assert.deepEqual(taken.kind === 'reuse' && [taken.volume.name, taken.matchedSortKeys], [
    'warm',
    ['trigger'],
  ]);
  // Being let go by the build that had it: waited for, though another is free.
  const ending = { ...warm, inUse: true, releasing: true, claim: 'pvc-b0' };
  const held = chooseVolume(prefers, [ranked, ending]);
  assert.deepEqual(held.kind === 'wait' && [held.volume.name, held.reason], [
    'warm',
    'volume warm, which the claim prefers, is being released by claim pvc-b0',
  ]);
  // Held by a live claim, another pipeline's, retiring, too small, a spare, on another node:
  // the usual choice.
  const refused: VolumeFacts[] = [
    { ...warm, inUse: true, claim: 'pvc-b9' },
    { ...warm, labels: { ...base, pipeline: 'p2' } },
    { ...warm, retiring: true },
    { ...warm, capacityBytes: GI },
    { ...warm, spare: true },
    { ...warm, node: 'n2' },
  ];
  for (const other of refused) {
    const choice = chooseVolume({ ...prefers, node: 'n1' }, [ranked, other]);
    assert.equal(choice.kind === 'reuse' && choice.volume.name, 'ranked', JSON.stringify(other));
  }
  // A name no volume has: the usual choice.
  const gone = chooseVolume(claim(base, { prefer: 'nope' }), [ranked]);
  assert.equal(gone.kind === 'reuse' && gone.volume.name, 'ranked');
});
