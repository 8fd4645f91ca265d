import { Injectable, type PipeTransform } from '@nestjs/common';
import { parseEntitySlug } from './entity-slug';

/** `@Param('entity', EntitySlugPipe)`: a 400 before any lookup when `{entity}` is not a slug. */
@Injectable()
export class EntitySlugPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    return parseEntitySlug(value);
  }
}
