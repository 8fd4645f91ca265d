import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A plugin config as a client sends it; further members are stored and returned as they came. */
export class PluginConfigInputView {
  @ApiProperty({ description: 'The plugin name' }) name!: string;
  @ApiProperty({ description: 'The plugin version it loads (semantic version)' })
  version!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Checked against the manifest of that version',
  })
  config!: Record<string, unknown>;
}

/** How the API description shows a `PluginConfigView`: further members sit beside these. */
export class StoredPluginConfigView extends PluginConfigInputView {
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PluginConfigListView {
  @ApiProperty({ type: [StoredPluginConfigView] }) items!: StoredPluginConfigView[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last' })
  nextCursor?: string;
}
