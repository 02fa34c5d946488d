export { BUILD_LABELS, MANAGED_BY_SLUICE, runtimeSelector } from './build-labels.js';
export { DOCKER_LABELS } from './docker-labels.js';
export { isLabelValue, labelValue, nameHash } from './label-value.js';
export { CACHE_ANNOTATIONS, REUSE_ANNOTATIONS } from './cache-annotations.js';
