import { ApiProperty } from '@nestjs/swagger';

/** One permission and the endpoints it opens. */
export class PermissionView {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: [String], example: ['GET /entities/{entity}/configs'] })
  endpoints!: string[];
}
