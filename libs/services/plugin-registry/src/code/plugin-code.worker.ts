import type { MessagePort } from 'node:worker_threads';
import { checkPluginCode, type CodeProblem } from './plugin-code.validator';

/** One upload to check, and where to say the parse starts (its deadline runs from then). */
export interface CheckTask {
  source: string;
  started: MessagePort;
}

/** What a plugin-code check thread runs for each upload (`PluginCodeChecker`). */
export default function check({ source, started }: CheckTask): CodeProblem | undefined {
  started.postMessage('started');
  return checkPluginCode(source);
}
