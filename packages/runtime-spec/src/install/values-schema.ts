/**
 * The runtime chart values schema (charts/sluice-runtime/values.schema.json), as data: Helm checks
 * a chart install against that file, and `sluice runner init` checks the values it is given
 * (`--values`, `--set-value`) against this object with `checkInstallValues`, so a misspelt or
 * mistyped value fails both the same way. A test keeps the two equal.
 * @module
 */
export const RUNTIME_VALUES_SCHEMA: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'sluice-runtime values',
  type: 'object',
  additionalProperties: false,
  required: ['controlPlane', 'runtime', 'agent', 'rbac', 'proxy'],
  properties: {
    controlPlane: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: {
          description: "The Sluice server's URL as pods in this cluster reach it",
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^https?://[^\\s/]+(/\\S*)?$',
            },
          ],
        },
      },
    },
    runtime: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'namespace', 'createNamespace'],
      properties: {
        name: {
          description: 'The runtime environment the agent serves',
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^[A-Za-z0-9][\\w./:@-]*$',
            },
          ],
          maxLength: 200,
        },
        namespace: {
          description: "The namespace of the builds' objects; the release namespace when empty",
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
            },
          ],
          maxLength: 63,
        },
        createNamespace: {
          type: 'boolean',
        },
        dindHostAlias: {
          type: 'boolean',
        },
        warmPool: {
          description: 'Pods kept running ahead of builds (docs/warm-pool.md)',
          type: 'object',
          additionalProperties: false,
          properties: {
            minSize: {
              type: 'integer',
              minimum: 0,
              maximum: 100,
            },
            maxSize: {
              type: 'integer',
              minimum: 0,
              maximum: 100,
            },
            mode: {
              type: 'string',
              enum: ['fixed', 'adaptive'],
            },
          },
        },
        engineServiceAccount: {
          type: 'object',
          additionalProperties: false,
          required: ['create', 'name'],
          properties: {
            create: {
              type: 'boolean',
            },
            name: {
              description:
                "The engine pods' ServiceAccount (runtimeScheduler.cluster.serviceAccount)",
              type: 'string',
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
              maxLength: 253,
            },
          },
        },
      },
    },
    agent: {
      type: 'object',
      additionalProperties: false,
      required: ['image', 'replicas', 'concurrency', 'drainSeconds', 'httpPort'],
      properties: {
        token: {
          type: 'string',
        },
        existingSecret: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: {
              type: 'string',
            },
            key: {
              type: 'string',
              minLength: 1,
            },
          },
        },
        image: {
          type: 'object',
          additionalProperties: false,
          required: ['repository', 'tag'],
          properties: {
            repository: {
              type: 'string',
              minLength: 1,
            },
            tag: {
              type: 'string',
              minLength: 1,
            },
            pullPolicy: {
              enum: ['Always', 'IfNotPresent', 'Never'],
            },
          },
        },
        replicas: {
          type: 'integer',
          minimum: 0,
          maximum: 10,
        },
        concurrency: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
        },
        drainSeconds: {
          type: 'integer',
          minimum: 0,
          maximum: 3600,
        },
        httpPort: {
          type: 'integer',
          minimum: 1,
          maximum: 65535,
        },
        resources: {
          type: 'object',
        },
        nodeSelector: {
          type: 'object',
          additionalProperties: {
            type: 'string',
          },
        },
        tolerations: {
          type: 'array',
          items: {
            type: 'object',
          },
        },
        extraEnv: {
          type: 'object',
          additionalProperties: {
            type: 'string',
          },
        },
        runtimesSecret: {
          description: 'A Secret of *.runtime.yaml files: runtimes in other clusters',
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
            },
          ],
        },
        serviceAccount: {
          type: 'object',
          additionalProperties: false,
          properties: {
            create: {
              type: 'boolean',
            },
            name: {
              type: 'string',
            },
            annotations: {
              type: 'object',
              additionalProperties: {
                type: 'string',
              },
            },
          },
        },
      },
    },
    rbac: {
      type: 'object',
      additionalProperties: false,
      properties: {
        create: {
          type: 'boolean',
        },
      },
    },
    volumes: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: {
          type: 'boolean',
        },
        storageClass: {
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
            },
          ],
        },
        volumeBackend: {
          type: 'string',
          enum: ['local', 'delegate'],
        },
        delegateStorageClass: {
          type: 'string',
          anyOf: [
            {
              pattern: '^$',
            },
            {
              pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
            },
          ],
        },
        parentDir: {
          type: 'string',
          pattern: '^/',
        },
        replicas: {
          type: 'integer',
          minimum: 1,
        },
        leaseSeconds: {
          type: 'integer',
          minimum: 2,
          maximum: 300,
        },
        retentionDays: {
          type: 'integer',
          minimum: 0,
          maximum: 3650,
        },
        spares: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
        },
        diskThreshold: {
          type: 'number',
          minimum: 0.01,
          maximum: 1,
        },
        inodeThreshold: {
          type: 'number',
          minimum: 0.01,
          maximum: 1,
        },
        resources: {
          type: 'object',
        },
      },
    },
    proxy: {
      type: 'object',
      additionalProperties: false,
      properties: {
        httpProxy: {
          type: 'string',
        },
        httpsProxy: {
          type: 'string',
        },
        noProxy: {
          type: 'string',
        },
      },
    },
  },
};

/** The JSON Schema keywords the values schema uses, and so all `checkInstallValues` knows. */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}
