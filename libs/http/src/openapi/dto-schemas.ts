import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Schema = Record<string, unknown>;
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type Class = Function;

// class-transformer keeps `@Type` metadata here (as @nestjs/swagger reads it); no typed entry.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: {
    findTypeMetadata(target: Class, property: string): { typeFunction(): unknown } | undefined;
  };
};

interface OpenApiLike {
  components?: Record<string, Record<string, unknown>>;
}

/** Every class class-validator knows, by name (its storage keeps them in a private map). */
function validatedClasses(): Map<string, Class> {
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas?: Map<Class, ValidationMetadata[]>;
  };
  const classes = new Map<string, Class>();
  for (const target of storage.validationMetadatas?.keys() ?? []) {
    if (typeof target === 'function') classes.set(target.name, target);
  }
  return classes;
}

// class-validator's ValidationTypes of @IsOptional / @IsOmittable (any @ValidateIf) and @ValidateNested.
const CONDITIONAL = 'conditionalValidation';
const NESTED = 'nestedValidation';
// @Allow(): any value, an absent one included.
const WHITELIST = 'whitelistValidation';

/** What one validation constraint says about a value, as JSON Schema. */
function constraintSchema(rule: ValidationMetadata): Schema {
  const [first, second] = rule.constraints ?? [];
  switch (rule.name) {
    case 'isString':
      return { type: 'string' };
    case 'isInt':
      return { type: 'integer' };
    case 'isNumber':
      return { type: 'number' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isObject':
      return { type: 'object' };
    case 'isArray':
      return { type: 'array' };
    case 'isIn':
      return Array.isArray(first) ? { enum: first } : {};
    case 'isEmail':
      return { type: 'string', format: 'email' };
    case 'isUrl':
      return { type: 'string', format: 'uri' };
    case 'isUuid':
      return { type: 'string', format: 'uuid' };
    case 'isIso8601':
    case 'isDateString':
      return { type: 'string', format: 'date-time' };
    case 'maxLength':
      return { maxLength: first };
    case 'minLength':
      return { minLength: first };
    case 'isLength':
      return { minLength: first, ...(second === undefined ? {} : { maxLength: second }) };
    case 'matches':
      return first instanceof RegExp ? { pattern: first.source } : {};
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'arrayMinSize':
      return { minItems: first };
    case 'arrayMaxSize':
      return { maxItems: first };
    case 'arrayUnique':
      return { uniqueItems: true };
    default:
      return {};
  }
}

/**
 * The JSON Schema of a DTO from its class-validator decorators (and class-transformer's
 * `@Type` for nested DTOs), adding the schemas of nested DTOs to `schemas` as it goes.
 */
function dtoSchema(
  target: Class,
  schemas: Record<string, unknown>,
  known: Map<string, Class>,
): Schema {
  const rules = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const rule of rules) {
    byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [property, propertyRules] of byProperty) {
    let value: Schema = {};
    let items: Schema | undefined;
    let optional = false;
    for (const rule of propertyRules) {
      if (rule.type === CONDITIONAL) {
        optional = true;
        continue;
      }
      let part: Schema = constraintSchema(rule);
      if (rule.type === NESTED) {
        const nested = defaultMetadataStorage.findTypeMetadata(target, property)?.typeFunction();
        if (typeof nested === 'function' && known.get(nested.name) === nested) {
          schemas[nested.name] ??= dtoSchema(nested, schemas, known);
          part = { $ref: `#/components/schemas/${nested.name}` };
        }
      }
      if (rule.each) items = { ...items, ...part };
      else value = { ...value, ...part };
    }
    if (items) value = { ...value, type: 'array', items };
    if (value['$ref'] && Object.keys(value).length > 1) {
      const { $ref, ...rest } = value;
      value = { ...rest, allOf: [{ $ref }] };
    }
    properties[property] = value;
    // A property only @Allow()ed is checked by nothing, its presence neither.
    if (propertyRules.every((rule) => rule.type === WHITELIST)) optional = true;
    if (!optional) required.push(property);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * Fills the component schemas Nest's Swagger module left empty (a DTO without `@ApiProperty`
 * decorators becomes `{type: object, properties: {}}`) from the DTO's validation decorators,
 * so every request body is described by the same rules that validate it.
 */
export function fillDtoSchemas<T extends object>(input: T): T {
  const document = input as OpenApiLike;
  const schemas = (document.components?.['schemas'] ?? {}) as Record<string, Schema>;
  const known = validatedClasses();
  for (const [name, schema] of Object.entries(schemas)) {
    const target = known.get(name);
    const properties = schema['properties'] as Record<string, unknown> | undefined;
    if (!target || (properties && Object.keys(properties).length > 0)) continue;
    schemas[name] = dtoSchema(target, schemas, known);
  }
  return input;
}
