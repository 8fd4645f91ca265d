import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { extname, join, resolve } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { PluginCodeCheckBusyError, PluginCodeUncheckableError } from '../plugin-registry.errors';
import type { CodeProblem } from './plugin-code.validator';
import type { CheckTask } from './plugin-code.worker';

export interface PluginCodeCheckLimits {
  /** Uploads waiting for the thread; beyond this they are answered 503 at once. */
  queue: number;
  /** An upload still waiting for the thread after this is answered 503 (try again later). */
  queueWaitMs: number;
  /**
   * A parse still running after this (counted from its start, not from the upload's arrival)
   * is given up (the thread is ended) and the code refused.
   */
  timeoutMs: number;
  /** The thread's own heap: a parse that needs more ends the thread, never the process. */
  heapMb: number;
}

/** Limits other than the defaults (tests). */
export const PLUGIN_CODE_CHECK_LIMITS = Symbol('PLUGIN_CODE_CHECK_LIMITS');

/** No megabyte of real code takes acorn a second to parse here. */
const DEFAULT_LIMITS: PluginCodeCheckLimits = {
  queue: 16,
  queueWaitMs: 10_000,
  timeoutMs: 5_000,
  heapMb: 512,
};
/** One thread: uploads are rare, and the other core is the database's and the requests'. */
const THREADS = 1;

const PISCINA_QUEUE_FULL = 'Task queue is at limit';

const WORKER = join(__dirname, `plugin-code.worker${extname(__filename)}`);

/**
 * Parsing a megabyte of JavaScript takes acorn up to a second of CPU and 100 MB of memory
 * (a hostile-input audit: a 1 MB array literal, 0.8 s; four uploaders in a loop held every
 * tenant's requests of the process up to 11 s). The check runs on a thread of its own
 * (piscina), with a heap limit and a deadline, so the event loop keeps serving while it
 * parses; a queue of bounded length keeps uploads from piling up behind it.
 */
@Injectable()
export class PluginCodeChecker implements OnModuleDestroy {
  private readonly limits: PluginCodeCheckLimits;
  private pool: Piscina<CheckTask, CodeProblem | undefined> | undefined;

  constructor(
    @Optional() @Inject(PLUGIN_CODE_CHECK_LIMITS) limits?: Partial<PluginCodeCheckLimits>,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /**
   * Made at the first upload, so a process that never takes one starts no thread. Its one
   * thread is kept from then on: with none kept, piscina starts no new thread for the uploads
   * queued behind one whose thread it ended at the deadline, and they would wait forever.
   */
  private threads(): Piscina<CheckTask, CodeProblem | undefined> {
    this.pool ??= new Piscina({
      filename: WORKER,
      minThreads: THREADS,
      maxThreads: THREADS,
      maxQueue: this.limits.queue,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb },
      execArgv: workerExecArgv(),
    });
    return this.pool;
  }

  /**
   * The problem that refuses the code, or undefined when it is a module the frontend loads.
   * The thread says when it starts the parse: the parse's deadline runs from then, so an
   * upload queued behind a slow one is not refused for the time it waited (it is answered 503
   * if it waits too long).
   */
  async check(source: string): Promise<CodeProblem | undefined> {
    const pool = this.threads();
    if (pool.queueSize >= this.limits.queue) throw new PluginCodeCheckBusyError();
    const aborter = new AbortController();
    const { port1: started, port2: startedInThread } = new MessageChannel();
    let parsing = false;
    let timer = setTimeout(() => aborter.abort(), this.limits.queueWaitMs);
    started.once('message', () => {
      parsing = true;
      clearTimeout(timer);
      timer = setTimeout(() => aborter.abort(), this.limits.timeoutMs);
    });
    try {
      return await pool.run(
        { source, started: startedInThread },
        { signal: aborter.signal, transferList: [startedInThread] },
      );
    } catch (error) {
      // Piscina's own count of its queue, should it differ from the one read above.
      if (error instanceof Error && error.message === PISCINA_QUEUE_FULL)
        throw new PluginCodeCheckBusyError();
      if (aborter.signal.aborted && !parsing) throw new PluginCodeCheckBusyError();
      throw new PluginCodeUncheckableError(this.reasonOf(error));
    } finally {
      clearTimeout(timer);
      started.close();
    }
  }

  private reasonOf(error: unknown): string {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_WORKER_OUT_OF_MEMORY')
      return `its parse needs more than ${this.limits.heapMb} MB`;
    if ((error as { name?: unknown }).name === 'AbortError')
      return `its parse takes more than ${this.limits.timeoutMs / 1000} s`;
    throw error;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.destroy();
  }
}

/**
 * Compiled (the image's `dist/`), the thread runs the JavaScript as it is. From the
 * TypeScript sources (`npm start`, the tests) it compiles them as the process does; nothing
 * else of the process's options (its heap sizes among them) is the thread's.
 */
function workerExecArgv(): string[] {
  if (extname(__filename) !== '.ts') return [];
  return ['--require', resolve(__dirname, '../../../../../tools/register.js')];
}
