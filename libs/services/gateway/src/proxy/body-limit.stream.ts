import { Transform, type TransformCallback } from 'node:stream';
import { BodyTooLargeError } from '../gateway.errors';

/**
 * Passes a request body through unchanged and fails with 413 once more than `limitBytes`
 * went by: a body sent without Content-Length (chunked) is limited as it streams.
 */
export class BodyLimitStream extends Transform {
  private received = 0;
  exceeded = false;

  constructor(private readonly limitBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limitBytes) {
      this.exceeded = true;
      callback(new BodyTooLargeError(this.limitBytes));
      return;
    }
    callback(null, chunk);
  }
}
