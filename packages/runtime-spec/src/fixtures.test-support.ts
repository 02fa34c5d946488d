/**
 * Spec files the tests share: a Kubernetes runtime that uses every section, as an operator
 * would write it for a production cluster, and the embedded local runtime.
 * @module
 */

export const KUBERNETES_SPEC_YAML = `version: 1
metadata:
  name: prod-eks/sluice-builds
  agent: true
description: Builds of the platform team on the EKS cluster
extends:
  - system/default/k8s
controlPlaneUrl: https://sluice.example.com
proxy:
  httpProxy: http://proxy.internal:3128
  httpsProxy: http://proxy.internal:3128
  noProxy: localhost,127.0.0.1,.svc,.cluster.local
runtimeScheduler:
  type: KubernetesPod
  image: registry.example.com/sluice/engine:0.1.0
  imagePullPolicy: Always
  command: [sluice, engine]
  envVars:
    LOG_LEVEL: debug
    DOCKER_REQUEST_TIMEOUT_MS: 30000
    FORCE_COMPOSE_SERIAL_PULL: false
  userEnvVars:
    - name: NPM_TOKEN
      valueFrom:
        secretKeyRef: { name: npm-credentials, key: token }
    - name: REGISTRY_MIRROR
      valueFrom:
        configMapKeyRef: { name: build-settings, key: mirror, optional: true }
    - name: TEAM
      value: platform
    - name: NODE_NAME
      valueFrom:
        fieldRef: { fieldPath: spec.nodeName }
  workflowLimits:
    MAXIMUM_ALLOWED_WORKFLOW_AGE_BEFORE_TERMINATION: 43200
    TIME_INACTIVE_UNTIL_TERMINATION: 1800
  cluster:
    namespace: sluice-builds
    serviceAccount: sluice-engine
    inCluster: true
    nodeSelector:
      node.kubernetes.io/instance-type: m5.xlarge
      topology.kubernetes.io/zone: eu-west-1a
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - { key: kubernetes.io/arch, operator: In, values: [amd64] }
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 50
          preference:
            matchExpressions:
              - { key: sluice.io/pool, operator: Exists }
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels: { app: sluice-engine }
  tolerations:
    - { key: sluice.io/engine, operator: Equal, value: "true", effect: NoSchedule }
    - { key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300 }
  annotations:
    iam.amazonaws.com/role: sluice-engine
  labels:
    team: platform
  schedulerName: default-scheduler
  resources:
    requests: { cpu: 200m, memory: 256Mi }
    limits: { cpu: 1, memory: 2Gi }
  terminationGracePeriodSeconds: 180
  dnsPolicy: ClusterFirst
  dnsConfig:
    options:
      - { name: ndots, value: "2" }
dockerDaemonScheduler:
  type: DindKubernetesPod
  dindImage: registry.example.com/sluice/dind:0.1.0
  imagePullPolicy: IfNotPresent
  userAccess: true
  envVars:
    DOCKER_BUILDKIT: 1
  cluster:
    namespace: sluice-builds
    nodeSelector:
      topology.kubernetes.io/zone: eu-west-1a
  tolerations:
    - { key: sluice.io/dind, operator: Exists, effect: NoSchedule }
  annotations:
    cluster-autoscaler.kubernetes.io/safe-to-evict: "false"
  labels:
    team: platform
  pvcs:
    dind:
      name: dind
      storageClassName: dind-ebs-eu-west-1a
      volumeSize: 30Gi
      reuseVolumeSelector: sluice.io/app,sluice.io/pipeline-id,sluice.io/branch
      reuseVolumeSortOrder: sluice.io/trigger
      annotations:
        sluice.io/volume-retention: 7d
  defaultDindResources:
    requests: { cpu: 400m, memory: 800Mi, ephemeral-storage: 1Gi }
    limits: { cpu: 2500m, memory: 4Gi }
  terminationGracePeriodSeconds: 300
  userVolumeMounts:
    corporate-ca:
      name: corporate-ca
      mountPath: /etc/ssl/corporate
      readOnly: true
  userVolumes:
    corporate-ca:
      name: corporate-ca
      secret:
        secretName: corporate-ca
        defaultMode: 420
  clientCertPath: /etc/ssl/sluice/
  volumeMounts:
    docker-config:
      mountPath: /etc/docker/certs.d
  volumes:
    docker-config:
      configMap:
        name: registry-certs
        items:
          - { key: ca.crt, path: registry.example.com/ca.crt }
  podSecurityContext:
    fsGroup: 1000
    fsGroupChangePolicy: OnRootMismatch
  containerSecurityContext:
    privileged: true
  initContainers:
    - name: volume-permissions
      image: registry.example.com/busybox:1.36
      command: [sh, -c, chown -R 1000:1000 /var/lib/docker]
      volumeMounts:
        - { name: dind, mountPath: /var/lib/docker }
      securityContext: { runAsUser: 0 }
  dnsPolicy: None
  dnsConfig:
    nameservers: [10.0.0.10]
    searches: [sluice-builds.svc.cluster.local]
  daemonConfig:
    mtu: 1440
    registryMirrors: [https://mirror.gcr.io]
    insecureRegistries: [registry.internal:5000, 10.20.0.0/16]
`;

export const LOCAL_SPEC_YAML = `version: 1
metadata:
  name: local
  agent: true
description: The machine sluice up runs on
extends: [system/default/local]
runtimeScheduler:
  type: LocalDocker
  dockerHost: unix:///var/run/docker.sock
  envVars:
    LOG_LEVEL: info
dockerDaemonScheduler:
  type: LocalDocker
controlPlaneUrl: http://127.0.0.1:8080
`;
