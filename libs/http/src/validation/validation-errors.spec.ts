import { plainToInstance, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
  validate,
} from 'class-validator';
import { flattenValidationErrors } from './validation-errors';

class Item {
  @IsInt()
  @Min(1)
  @Max(99)
  quantity!: number;
}

class Order {
  @IsString()
  @Length(1, 20)
  name!: string;

  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];
}

class Grant {
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(['read', 'write'], { each: true })
  permissions!: string[];
}

async function errorsOf(body: object) {
  return flattenValidationErrors(await validate(plainToInstance(Order, body)));
}

describe('validation errors as a flat list', () => {
  it('says what is wrong with a value of the wrong kind, not also its size', async () => {
    expect(await errorsOf({ name: 5, items: [{ quantity: '2' }] })).toEqual([
      { path: 'name', message: 'name must be a string' },
      { path: 'items[0].quantity', message: 'quantity must be an integer number' },
    ]);
  });

  it('says what is wrong with the size of a value of the right kind', async () => {
    expect(await errorsOf({ name: 'x'.repeat(21), items: [{ quantity: 100 }] })).toEqual([
      { path: 'name', message: 'name must be shorter than or equal to 20 characters' },
      { path: 'items[0].quantity', message: 'quantity must not be greater than 99' },
    ]);
  });

  it('says an array is too long even when one of its elements is refused too', async () => {
    const errors = flattenValidationErrors(
      await validate(plainToInstance(Grant, { permissions: ['read', 'write', 'admin'] })),
    );
    expect(errors.map((error) => error.message).sort()).toEqual([
      'each value in permissions must be one of the following values: read, write',
      'permissions must contain no more than 2 elements',
    ]);
  });

  it('says only that a value is no array when it is none', async () => {
    expect(
      flattenValidationErrors(await validate(plainToInstance(Grant, { permissions: 'read' }))),
    ).toEqual([{ path: 'permissions', message: expect.stringMatching(/must be an array/) }]);
  });
});
