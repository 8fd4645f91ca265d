import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '@comanda/security';
import { KeyRotationView } from './key-rotation.view';
import { SigningKeyService } from './signing-key.service';

@Controller('admin/keys')
@ApiTags('admin')
@RequirePermission('platform:admin')
export class KeysController {
  constructor(private readonly keys: SigningKeyService) {}

  /** Promotes the published next key to signing and publishes a new next key. */
  @Post('rotate')
  @HttpCode(200)
  @ApiOkResponse({ type: KeyRotationView })
  rotate(): Promise<KeyRotationView> {
    return this.keys.rotate();
  }
}
