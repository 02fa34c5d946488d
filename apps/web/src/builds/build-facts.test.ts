import { expect, test } from 'vitest';
import { variableRows } from './build-facts.js';

test("the build's variables and secrets first, then its pipeline's it does not override", () => {
  const rows = variableRows({ variables: { GREETING: 'hi', A: '1' }, secretNames: ['TOKEN'] }, [
    { name: 'GREETING', value: 'from-the-pipeline', secret: false },
    { name: 'REGION', value: 'eu-1', secret: false },
    { name: 'DEPLOY_KEY', value: null, secret: true },
  ]);
  expect(rows).toEqual([
    { name: 'A', value: '1', from: 'build' },
    { name: 'GREETING', value: 'hi', from: 'build' },
    { name: 'TOKEN', value: null, from: 'build' },
    { name: 'DEPLOY_KEY', value: null, from: 'pipeline' },
    { name: 'REGION', value: 'eu-1', from: 'pipeline' },
  ]);
});
