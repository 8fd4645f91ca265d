import { startDistributedDeployment } from './distributed-deployment';
import { startStandaloneDeployment } from './standalone-deployment';

/**
 * What the suite attacks: `standalone` is the platform as `npm start` runs it (one process),
 * `distributed` is every service in its own process from the compiled build, as compose and
 * Kubernetes run them. Each Jest project of test/security/jest.config.js sets one.
 */
export type DeploymentTarget = 'standalone' | 'distributed';

export const TARGET: DeploymentTarget =
  process.env['SECURITY_TARGET'] === 'distributed' ? 'distributed' : 'standalone';

/** One operating-system process of a deployment, with the HTTP port it answers on. */
export interface DeploymentProcess {
  /** `standalone`, or the service it runs (`gateway`, `auth`, ...). */
  name: string;
  port: number;
  url: string;
  pid: number;
  alive(): boolean;
  /** The process's output so far (the last 20,000 characters). */
  output(): string;
}

export interface Deployment {
  target: DeploymentTarget;
  /** The public port: the gateway's. */
  baseUrl: string;
  port: number;
  admin: { clientId: string; clientSecret: string };
  dataDir: string;
  databaseUrl: string;
  /** The process serving the public port (the standalone process, or the gateway). */
  front: DeploymentProcess;
  /** Every process of the deployment. */
  processes: DeploymentProcess[];
  /**
   * The services behind the gateway on their own ports, as anyone on the internal network
   * reaches them: distributed only (standalone keeps them on loopback inside its process).
   */
  internal: DeploymentProcess[];
  /** True while every process runs: what every security test checks after its attack. */
  alive(): boolean;
  /** Every process's output so far (for a failing test's message, and log assertions). */
  output(): string;
  /** Stops every process and keeps the database and data folder (for a restart). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Settings for every process (standalone: its one process). */
  env?: Record<string, string>;
  /** Reuse the database, data folder and admin client of a stopped deployment. */
  reuse?: Deployment;
}

/** Starts the deployment this Jest project attacks (see TARGET). */
export function startDeployment(label: string, options: StartOptions = {}): Promise<Deployment> {
  return TARGET === 'distributed'
    ? startDistributedDeployment(label, options)
    : startStandaloneDeployment(label, options);
}

/** One process of a distributed deployment by service name (the test fails if there is none). */
export function internalService(deployment: Deployment, name: string): DeploymentProcess {
  const found = deployment.internal.find((service) => service.name === name);
  if (!found) throw new Error(`no ${name} process in this ${deployment.target} deployment`);
  return found;
}
