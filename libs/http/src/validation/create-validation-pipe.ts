import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { RequestValidationError } from './request-validation.error';
import { flattenValidationErrors } from './validation-errors';

/**
 * Nest's ValidationPipe, answering at once for a parameter it has nothing to validate (a
 * path or query string, a custom decorator's value): the same value as
 * `ValidationPipe.transform`'s first branch, without the promise of its `async`. A DTO is
 * validated by the pipe itself, unchanged (docs/adr/0044).
 */
class ImmediateValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const expected = this.expectedType ? { ...metadata, metatype: this.expectedType } : metadata;
    if (!expected.metatype || !this.toValidate(expected)) {
      // Nest awaits what a pipe returns: a plain value is taken as it is.
      return (
        this.isTransformEnabled ? this.transformPrimitive(value, expected) : value
      ) as Promise<unknown>;
    }
    return super.transform(value, metadata);
  }
}

/** Unknown properties are errors, not silently dropped: a typo in a field name must be seen. */
export function createValidationPipe(): ValidationPipe {
  return new ImmediateValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) =>
      new RequestValidationError(flattenValidationErrors(errors)),
  });
}
