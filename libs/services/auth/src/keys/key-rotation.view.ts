import { ApiProperty } from '@nestjs/swagger';

/** The keys after a rotation: the one now signing and the one published next. */
export class KeyRotationView {
  @ApiProperty({ description: 'The key id that signs from now on' }) currentKid!: string;
  @ApiProperty({ description: 'The key id published for the next rotation' }) nextKid!: string;
}
