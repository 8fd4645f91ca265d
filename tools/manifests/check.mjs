// CI check of the deployment manifests, with libraries already installed (no docker, no
// kubectl): docker-compose.yml against the Compose specification's JSON schema, and every
// manifest kustomize renders from k8s/overlays/* against the Kubernetes schemas of
// `kubernetes-models`, plus the rules the project holds them to (probes, resources, security
// context, a PodDisruptionBudget per Deployment, the NetworkPolicy). One line per problem.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { GENERATED } from './generate.mjs';
import { DEPLOYED_SERVICES } from './services.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const problems = [];
const problem = (where, what) => problems.push(`${where}: ${what}`);

// 1. Generated files match the list of services.
for (const [file, render] of Object.entries(GENERATED)) {
  if (!existsSync(join(ROOT, file)) || readFileSync(join(ROOT, file), 'utf8') !== render()) {
    problem(
      file,
      'differs from tools/manifests/services.mjs: run node tools/manifests/generate.mjs',
    );
  }
}

// 2. Compose against the Compose specification (the schema `docker compose` itself uses,
// shipped in the `docker-compose` package testcontainers depends on).
const composeSchema = JSON.parse(
  readFileSync(require.resolve('docker-compose/schema/compose-spec.json'), 'utf8'),
);
// Draft-07, which Ajv's default meta-schema is (the file names it by its https address).
delete composeSchema.$schema;
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));
const validCompose = ajv.compile(composeSchema);
if (!validCompose(compose)) {
  for (const error of validCompose.errors ?? []) {
    problem('docker-compose.yml', `${error.instancePath || '/'} ${error.message}`);
  }
}
for (const { name, http } of DEPLOYED_SERVICES) {
  const service = compose.services?.[name];
  if (!service) problem('docker-compose.yml', `no service "${name}"`);
  else if (http !== false && !service.healthcheck) {
    problem('docker-compose.yml', `${name} has no healthcheck`);
  }
  if (!existsSync(join(ROOT, 'apps', name, 'src', 'main.ts'))) {
    problem('tools/manifests/services.mjs', `${name} has no entry apps/${name}/src/main.ts`);
  }
}

// 3. Kustomize, the part of it the manifests use: resources (files and folders), namespace,
// images, replicas, and strategic-merge patches of maps. Anything else is refused, so a new
// feature gets a renderer before CI can pass.
const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'images',
  'replicas',
  'patches',
]);
function render(folder) {
  const file = join(folder, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8'));
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED.has(key))
      problem(file, `"${key}" is not supported by tools/manifests/check.mjs`);
  }
  let objects = [];
  for (const resource of kustomization.resources ?? []) {
    const path = join(folder, resource);
    if (statSync(path).isDirectory()) objects.push(...render(path));
    else {
      for (const document of parseAllDocuments(readFileSync(path, 'utf8'))) {
        if (document.errors.length > 0) problem(path, document.errors[0].message);
        const value = document.toJS();
        if (value) objects.push(value);
      }
    }
  }
  for (const patch of kustomization.patches ?? []) {
    const change = parse(readFileSync(join(folder, patch.path), 'utf8'));
    const target = objects.find(
      (object) => object.kind === change.kind && object.metadata?.name === change.metadata?.name,
    );
    if (!target)
      problem(
        join(folder, patch.path),
        `patches nothing (${change.kind} ${change.metadata?.name})`,
      );
    else merge(target, change);
  }
  if (kustomization.namespace) {
    objects = objects.map((object) =>
      object.kind === 'Namespace'
        ? object
        : { ...object, metadata: { ...object.metadata, namespace: kustomization.namespace } },
    );
  }
  for (const image of kustomization.images ?? []) {
    for (const container of objects.flatMap(
      (object) => object.spec?.template?.spec?.containers ?? [],
    )) {
      if (container.image === image.name || container.image.startsWith(`${image.name}:`)) {
        container.image = `${image.newName ?? image.name}:${image.newTag ?? 'latest'}`;
      }
    }
  }
  for (const { name, count } of kustomization.replicas ?? []) {
    const target = objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name === name,
    );
    if (!target) problem(file, `replicas for unknown Deployment ${name}`);
    else target.spec.replicas = count;
  }
  return objects;
}
function merge(target, change) {
  for (const [key, value] of Object.entries(change)) {
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      typeof target[key] === 'object'
    ) {
      merge(target[key], value);
    } else target[key] = value;
  }
}

const MODELS = {
  'v1/Namespace': 'kubernetes-models/v1/Namespace',
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Service': 'kubernetes-models/v1/Service',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'networking.k8s.io/v1/NetworkPolicy': 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress',
};

const overlays = readdirSync(join(ROOT, 'k8s', 'overlays'));
if (!overlays.includes('production')) problem('k8s/overlays', 'no production overlay');
for (const overlay of overlays) {
  const where = `k8s/overlays/${overlay}`;
  const objects = render(join(ROOT, where));
  for (const object of objects) {
    const type = `${object.apiVersion}/${object.kind}`;
    const name = `${where}: ${object.kind} ${object.metadata?.name}`;
    if (!MODELS[type]) {
      problem(name, `no Kubernetes schema known for ${type} (add it to MODELS)`);
      continue;
    }
    const module = await import(MODELS[type]);
    try {
      new module[object.kind](object).validate();
    } catch (error) {
      problem(name, error.message.split('\n')[0]);
    }
    if (object.kind !== 'Namespace' && object.metadata?.namespace !== 'comanda') {
      problem(name, 'not in the comanda namespace');
    }
  }
  const deployments = objects.filter((object) => object.kind === 'Deployment');
  for (const { name } of DEPLOYED_SERVICES.filter((service) => service.kubernetes !== false)) {
    if (!deployments.some((deployment) => deployment.metadata.name === name)) {
      problem(where, `no Deployment "${name}"`);
    }
  }
  for (const deployment of deployments) {
    const name = `${where}: Deployment ${deployment.metadata.name}`;
    const pod = deployment.spec.template.spec;
    if (pod.securityContext?.runAsNonRoot !== true) problem(name, 'pods may run as root');
    for (const container of pod.containers) {
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        if (!container[probe]) problem(name, `${container.name} has no ${probe}`);
      }
      if (!container.resources?.requests?.memory || !container.resources?.limits?.memory) {
        problem(name, `${container.name} has no memory request and limit`);
      }
      if (container.securityContext?.allowPrivilegeEscalation !== false) {
        problem(name, `${container.name} allows privilege escalation`);
      }
      if (!container.image.includes(':') || container.image.endsWith(':latest')) {
        problem(name, `${container.name} runs an unpinned image (${container.image})`);
      }
    }
    const labels = deployment.spec.selector.matchLabels;
    const budget = objects.find(
      (object) =>
        object.kind === 'PodDisruptionBudget' &&
        JSON.stringify(object.spec.selector?.matchLabels) === JSON.stringify(labels),
    );
    if (!budget) problem(name, 'no PodDisruptionBudget');
  }
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const internal = policies.find((policy) =>
    policy.spec.podSelector?.matchExpressions?.some(
      (expression) => expression.operator === 'NotIn' && expression.values.includes('gateway'),
    ),
  );
  if (!internal)
    problem(where, 'no NetworkPolicy keeping the services behind the gateway internal');
  else if (
    internal.spec.ingress.some((rule) => !rule.from || rule.from.some((peer) => peer.ipBlock))
  ) {
    problem(where, 'the internal NetworkPolicy lets traffic in from outside the namespace');
  }
}

if (problems.length > 0) {
  for (const line of problems) console.error(line);
  process.exit(1);
}
console.log(
  `manifests ok: docker-compose.yml (${Object.keys(compose.services).length} services) and ${overlays.length} k8s overlay(s)`,
);
