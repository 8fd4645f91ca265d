import { Controller, HttpCode, Post } from '@nestjs/common';
import { RequirePermission } from '@comanda/security';
import { SigningKeyService } from './signing-key.service';

@Controller('admin/keys')
@RequirePermission('platform:admin')
export class KeysController {
  constructor(private readonly keys: SigningKeyService) {}

  /** Promotes the published next key to signing and publishes a new next key. */
  @Post('rotate')
  @HttpCode(200)
  rotate(): Promise<{ currentKid: string; nextKid: string }> {
    return this.keys.rotate();
  }
}
