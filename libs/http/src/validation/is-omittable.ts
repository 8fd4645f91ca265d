import { ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * A body field that may be left out. Unlike class-validator's `IsOptional`, which skips a
 * field's checks for `null` too, only an absent field (or one given as `undefined`) skips
 * them: `"receipt": null` is a string field holding no string, refused as such (400), not
 * taken as absent. The OpenAPI description still lists the field as optional (`dto-schemas`
 * reads any conditional validation so).
 */
export function IsOmittable(options?: ValidationOptions): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined, options);
}
