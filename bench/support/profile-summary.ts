/**
 * Where the time of a `--cpu-prof` profile went: idle share, self time per package (or
 * first-party file) and the hottest functions.
 *
 *   node -r ./tools/register.js bench/support/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  const own = /\/(libs|apps|bench)\/(.+)$/.exec(url);
  if (own)
    return `${own[1]}/${own[2]
      .split('/')
      .slice(0, own[1] === 'libs' ? 1 : 2)
      .join('/')}`;
  if (url.startsWith('node:')) return url;
  return url === '' ? '(native)' : url;
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  const top = Number(topArg ?? '25');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    self.set(id, (self.get(id) ?? 0) + delta);
    total += delta;
  });
  const perOwner = new Map<string, number>();
  const perFunction = new Map<string, number>();
  for (const [id, time] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = owner(url);
    perOwner.set(key, (perOwner.get(key) ?? 0) + time);
    const name = `${functionName || '(anonymous)'} ${key}:${lineNumber + 1}`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + time);
  }
  // Inclusive: a sample counts once for every package on its stack (shares overlap), as a
  // share of the time the process was not idle.
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, time] of self) {
    const leaf = byId.get(id);
    if (!leaf || leaf.callFrame.functionName === '(idle)') continue;
    busy += time;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) seen.add(owner(node.callFrame.url));
    }
    for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + time);
  }
  const pct = (time: number) => `${((100 * time) / total).toFixed(1).padStart(5)} %`;
  const print = (title: string, entries: Map<string, number>) => {
    console.log(`\n${title}`);
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([name, time]) => console.log(`${pct(time)}  ${name}`));
  };
  console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
  print('self time by package / first-party library', perOwner);
  print('self time by function', perFunction);
  console.log(`\ninclusive time by package, % of busy time (${(busy / 1e6).toFixed(1)} s)`);
  [...inclusive]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, time]) =>
      console.log(`${((100 * time) / busy).toFixed(1).padStart(5)} %  ${name}`),
    );
}

main();
