import { Injectable, type PipeTransform } from '@nestjs/common';
import { RequestValidationError } from '@comanda/http';
import { LIMITS } from '../domain/limits';

/** A path id within the length its column holds. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (value.length === 0 || value.length > LIMITS.idLength) {
      throw new RequestValidationError([
        { path: 'id', message: `must be 1 to ${LIMITS.idLength} characters` },
      ]);
    }
    return value;
  }
}
