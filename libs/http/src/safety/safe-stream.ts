import type { Readable } from 'node:stream';

/**
 * A stream about to be handed to a reply, with an `error` listener attached at once. A stream
 * that fails before the reply takes it (a missing file, the reply threw first) would otherwise
 * emit an unhandled `error` and end the whole process. `onError` decides what to record; the
 * reply itself still sees the stream end in error and closes the response.
 */
export function guardedStream<S extends Readable>(stream: S, onError?: (error: Error) => void): S {
  stream.on('error', (error: Error) => onError?.(error));
  return stream;
}
