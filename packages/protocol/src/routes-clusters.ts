/**
 * Routes of `/api/v1/clusters`: the Kubernetes clusters builds deploy to (credentials
 * write-only).
 * @module
 */
import { z } from 'zod';
import { route } from './route.js';
import { Cluster, ClusterName, CreateCluster } from './schemas/clusters.js';
import { BODY_LIMITS } from './schemas/limits.js';

const V1 = '/api/v1';
const Params = z.object({ name: ClusterName });
const TAG = 'clusters';

export const clusterRoutes = {
  listClusters: route({
    method: 'GET',
    path: `${V1}/clusters`,
    scope: 'member',
    tag: TAG,
    summary: "The account's clusters (never their credentials)",
    response: z.object({ items: z.array(Cluster) }),
  }),
  createCluster: route({
    method: 'POST',
    path: `${V1}/clusters`,
    scope: 'admin',
    tag: TAG,
    summary:
      'Add a cluster from a kubeconfig; its credentials are encrypted at rest and never returned; 400 SLUICE_CLUSTER_KUBECONFIG_INVALID says what in the file cannot be used, 409 SLUICE_CLUSTER_EXISTS when the name is taken',
    body: CreateCluster,
    bodyLimit: BODY_LIMITS.runtimeSpec,
    response: Cluster,
    status: 201,
  }),
  getCluster: route({
    method: 'GET',
    path: `${V1}/clusters/:name`,
    scope: 'member',
    tag: TAG,
    summary: 'One cluster (never its credentials)',
    params: Params,
    response: Cluster,
  }),
  deleteCluster: route({
    method: 'DELETE',
    path: `${V1}/clusters/:name`,
    scope: 'admin',
    tag: TAG,
    summary: 'Remove a cluster; builds that name it then fail saying it does not exist',
    params: Params,
    status: 204,
  }),
};
