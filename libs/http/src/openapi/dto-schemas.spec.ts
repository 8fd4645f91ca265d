import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Length,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '../validation/is-omittable';
import { fillDtoSchemas } from './dto-schemas';

class LineDto {
  @IsString()
  @MaxLength(50)
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;

  @IsString()
  @Length(2, 8)
  code!: string;

  /** Any value, or none. */
  @Allow()
  extra?: unknown;
}

class OrderDto {
  @IsIn(['pickup', 'delivery'])
  mode!: string;

  @IsOmittable()
  @IsString()
  note?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => LineDto)
  lines!: LineDto[];
}

describe('component schemas from DTO validation decorators', () => {
  it('fills an empty DTO schema, nested DTOs included, from the rules that validate it', () => {
    const document = fillDtoSchemas({
      components: { schemas: { [OrderDto.name]: { type: 'object', properties: {} } } },
    });
    const schemas = document.components.schemas as Record<string, unknown>;
    expect(schemas['OrderDto']).toEqual({
      type: 'object',
      properties: {
        mode: { enum: ['pickup', 'delivery'] },
        note: { type: 'string' },
        lines: {
          type: 'array',
          minItems: 1,
          items: { $ref: '#/components/schemas/LineDto' },
        },
      },
      required: ['mode', 'lines'],
    });
    expect(schemas['LineDto']).toEqual({
      type: 'object',
      properties: {
        sku: { type: 'string', maxLength: 50 },
        quantity: { type: 'integer', minimum: 1 },
        code: { type: 'string', minLength: 2, maxLength: 8 },
        extra: {},
      },
      required: ['sku', 'quantity', 'code'],
    });
  });

  it('leaves schemas that already describe their properties alone', () => {
    const described = { type: 'object', properties: { x: { type: 'string' } } };
    const document = fillDtoSchemas({ components: { schemas: { [OrderDto.name]: described } } });
    expect(document.components.schemas[OrderDto.name]).toBe(described);
  });
});
