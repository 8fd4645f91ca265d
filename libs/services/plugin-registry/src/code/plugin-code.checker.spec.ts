import { PluginCodeChecker } from './plugin-code.checker';

/** Valid, and slow to parse: a default-exported function, then a 1 MB array literal. */
const LARGE = `export default async function plugin(context) {}\nx = [${'a,'.repeat(500_000)}];\n`;
/** Acorn takes time quadratic in this regular expression's length: far beyond any deadline. */
const HOSTILE = `export default function () {}\nconst a = /${'(?<a>x)|'.repeat(100_000)}x/;\n`;
const SMALL = 'export default () => 1;';

describe('PluginCodeChecker (a thread of its own)', () => {
  const checkers: PluginCodeChecker[] = [];
  const checker = (limits?: ConstructorParameters<typeof PluginCodeChecker>[0]) => {
    const made = new PluginCodeChecker(limits);
    checkers.push(made);
    return made;
  };
  afterAll(() => Promise.all(checkers.map((made) => made.onModuleDestroy())));

  it('answers what the validator answers', async () => {
    const checking = checker();
    await expect(checking.check('export default () => 1;')).resolves.toBeUndefined();
    await expect(checking.check('export default function () {\n  return 1 +;\n}')).resolves.toEqual(
      { kind: 'syntax', message: 'Unexpected token', line: 2, column: 13 },
    );
    await expect(checking.check('export default 42;')).resolves.toMatchObject({
      kind: 'default_export_not_a_function',
      line: 1,
      column: 16,
    });
  });

  it('tells code nested deeper than the parser follows from a syntax error', async () => {
    const deep = `export default () => ${'['.repeat(200_000)}${']'.repeat(200_000)};`;
    await expect(checker().check(deep)).resolves.toMatchObject({ kind: 'too_deep' });
  });

  it('keeps the event loop turning while a large module is parsed', async () => {
    const checking = checker();
    let turns = 0;
    let checked = false;
    const turn = () => {
      turns += 1;
      if (!checked) setImmediate(turn);
    };
    setImmediate(turn);
    const problem = await checking.check(LARGE);
    checked = true;
    expect(problem).toBeUndefined();
    // A parse on the event loop's own thread would let no turn run before it answered.
    expect(turns).toBeGreaterThan(10);
  });

  it('refuses code whose check outlasts its deadline, and checks the next upload afresh', async () => {
    const checking = checker({ timeoutMs: 20 });
    await expect(checking.check(LARGE)).rejects.toMatchObject({
      status: 422,
      code: 'plugin.code_too_complex',
      detail: expect.stringContaining('its parse takes more than 0.02 s'),
    });
    const roomy = checker({ timeoutMs: 60_000 });
    await expect(roomy.check('export default () => 1;')).resolves.toBeUndefined();
  });

  it('counts the deadline from the start of the parse: an upload queued behind a slow one is checked', async () => {
    const checking = checker({ timeoutMs: 1_000, queueWaitMs: 60_000 });
    const slow = checking.check(HOSTILE);
    const queued = checking.check(SMALL);
    await expect(slow).rejects.toMatchObject({ status: 422, code: 'plugin.code_too_complex' });
    await expect(queued).resolves.toBeUndefined();
  });

  it('answers 503 with Retry-After to an upload that waits too long for the thread', async () => {
    const checking = checker({ timeoutMs: 60_000, queueWaitMs: 300 });
    const slow = checking.check(HOSTILE);
    slow.catch(() => undefined); // ended by the pool's destruction after the test
    await expect(checking.check(SMALL)).rejects.toMatchObject({
      status: 503,
      headers: { 'Retry-After': '2' },
    });
  });

  it('refuses code whose parse needs more than the thread’s heap, and the process lives on', async () => {
    const checking = checker({ heapMb: 16, timeoutMs: 60_000 });
    await expect(checking.check(LARGE)).rejects.toMatchObject({
      status: 422,
      code: 'plugin.code_too_complex',
      detail: expect.stringContaining('needs more than 16 MB'),
    });
    await expect(checking.check('export default () => 1;')).resolves.toBeUndefined();
  });

  it('answers 503 with Retry-After once its queue is full, and checks what it queued', async () => {
    const checking = checker({ queue: 2 });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => checking.check('export default () => 1;')),
    );
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused)
      expect(result.reason).toMatchObject({
        status: 503,
        code: 'service.unavailable',
        headers: { 'Retry-After': '2' },
      });
    expect(results.filter((result) => result.status === 'fulfilled').length).toBeGreaterThanOrEqual(
      2,
    );
  });
});
