/**
 * Codefresh's `deploy` step (`kind: kubernetes`) as Sluice runs it: a step in `sluice/kubectl:1`
 * against the cluster it names, which is a context of the KUBECONFIG every step gets from the
 * account's clusters (`sluice create cluster`). With `file_path`, the manifests are filled in
 * (`${{VAR}}` from the build's variables; an unknown one is left as written) and applied; without
 * it, the Deployment named `service` gets `candidate.image` in every container. Either way each
 * Deployment touched is waited for until its rollout completes, and a rollout that fails (its
 * progress deadline passed: an image that cannot be pulled, a crash loop) fails the step with
 * the rollout's error, the pods' waiting reasons and the namespace's latest events.
 * @module
 */
import { asBool, asMap, optionalString } from './build-model-values.js';
import type { Raw } from './build-model-values.js';
import type { FreestyleStep } from './model.js';
import type { Base } from './build-model-steps.js';

/** Debian's kubectl on busybox (images/build-local.sh --only kubectl). */
export const DEPLOY_IMAGE = 'sluice/kubectl:1';

/** `${{NAME}}` in each line of the file replaced by the variable, when the build has it. */
const FILL_IN = String.raw`{
  out = ""; line = $0
  while (match(line, /\$\{\{[A-Za-z_][A-Za-z0-9_]*\}\}/)) {
    name = substr(line, RSTART + 3, RLENGTH - 5)
    value = (name in ENVIRON) ? ENVIRON[name] : substr(line, RSTART, RLENGTH)
    out = out substr(line, 1, RSTART - 1) value
    line = substr(line, RSTART + RLENGTH)
  }
  print out line
}`;

export const DEPLOY_SCRIPT = String.raw`set -e
cluster="$SLUICE_DEPLOY_CLUSTER"
if [ -z "$KUBECONFIG" ] || ! kubectl config get-contexts "$cluster" >/dev/null 2>&1; then
  echo "The deploy step names cluster \"$cluster\", which this build does not have: add it with sluice create cluster $cluster (sluice get clusters lists the account's)" >&2
  exit 1
fi
set -- --context "$cluster"
[ -z "$SLUICE_DEPLOY_NAMESPACE" ] || set -- "$@" --namespace "$SLUICE_DEPLOY_NAMESPACE"
namespace=$(kubectl config view --minify --context "$cluster" -o 'jsonpath={..namespace}' 2>/dev/null || true)
echo "Deploying to cluster $cluster, namespace ${'$'}{SLUICE_DEPLOY_NAMESPACE:-${'$'}{namespace:-default}}"
# rollout DEPLOYMENT KUBECTL-FLAGS...
rollout() {
  target=$1
  shift
  echo "Waiting for the rollout of $target ..."
  if ! kubectl "$@" rollout status "$target"; then
    echo "The rollout of $target did not complete. Its namespace's pods and latest events:" >&2
    kubectl "$@" get pods -o custom-columns='POD:.metadata.name,PHASE:.status.phase,WAITING:.status.containerStatuses[*].state.waiting.reason,MESSAGE:.status.containerStatuses[*].state.waiting.message' >&2 || true
    kubectl "$@" get events --sort-by=.lastTimestamp 2>/dev/null | tail -n 10 >&2 || true
    exit 1
  fi
}
if [ -n "$SLUICE_DEPLOY_FILE" ]; then
  rendered=$(mktemp)
  awk '${FILL_IN}' "$SLUICE_DEPLOY_FILE" > "$rendered"
  objects=$(kubectl "$@" apply -f "$rendered" -o name)
  echo "$objects"
  for object in $objects; do
    case "$object" in
      deployment.apps/* | deployment.extensions/*) rollout "deployment/${'$'}{object#*/}" "$@" ;;
    esac
  done
else
  if [ -z "$SLUICE_DEPLOY_SERVICE" ] || [ -z "$SLUICE_DEPLOY_IMAGE" ]; then
    echo "The deploy step needs file_path, or service and candidate.image" >&2
    exit 1
  fi
  kubectl "$@" set image "deployment/$SLUICE_DEPLOY_SERVICE" "*=$SLUICE_DEPLOY_IMAGE"
  if [ "$SLUICE_DEPLOY_TIMESTAMP" = true ]; then
    at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    kubectl "$@" patch deployment "$SLUICE_DEPLOY_SERVICE" -p "{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"sluice.dev/deployed-at\":\"$at\"}}}}}"
  fi
  rollout "deployment/$SLUICE_DEPLOY_SERVICE" "$@"
fi
`;

export function buildDeploy(base: Base, raw: Raw): FreestyleStep {
  const candidate = asMap(raw.candidate) ?? {};
  const environment: [string, string][] = [
    ['SLUICE_DEPLOY_CLUSTER', optionalString(raw.cluster) ?? ''],
    ['SLUICE_DEPLOY_NAMESPACE', optionalString(raw.namespace) ?? ''],
    ['SLUICE_DEPLOY_SERVICE', optionalString(raw.service) ?? ''],
    ['SLUICE_DEPLOY_IMAGE', optionalString(candidate.image) ?? ''],
    ['SLUICE_DEPLOY_FILE', optionalString(raw.file_path) ?? ''],
    ['SLUICE_DEPLOY_TIMESTAMP', String(asBool(raw.timestamp, false))],
  ];
  return {
    ...base,
    type: 'freestyle',
    image: DEPLOY_IMAGE,
    commands: [DEPLOY_SCRIPT],
    shell: 'sh',
    environment,
    volumes: [],
  };
}
