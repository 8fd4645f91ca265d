import { Injectable, type PipeTransform } from '@nestjs/common';
import { RequestValidationError } from '@comanda/http';
import { MERCHANT_ID_PATTERN } from '../domain/merchant';

/** Merchant ids: 1-64 of `A-Za-z0-9._-`, starting with a letter or digit. */
@Injectable()
export class MerchantIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!MERCHANT_ID_PATTERN.test(value)) {
      throw new RequestValidationError([
        {
          path: 'id',
          message:
            'a merchant id is 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit',
        },
      ]);
    }
    return value;
  }
}
