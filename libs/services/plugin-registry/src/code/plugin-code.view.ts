import { ApiProperty } from '@nestjs/swagger';
import type { PluginVersionSummary, StoredCode } from './plugin-code.service';

/** How the API description shows {@link StoredCode}: the answer to a code upload. */
export class StoredCodeView implements Omit<StoredCode, 'uploadedAt'> {
  @ApiProperty() name!: string;
  @ApiProperty() version!: string;
  @ApiProperty({ description: 'SHA-256 of the code, hex' }) sha256!: string;
  @ApiProperty({ description: 'The ETag the code is served with' }) etag!: string;
  @ApiProperty({ type: 'integer', description: 'Bytes' }) size!: number;
  @ApiProperty({ description: 'True when it replaced earlier code of this version' })
  overwritten!: boolean;
  @ApiProperty({ format: 'date-time' }) uploadedAt!: string;
}

/** How the API description shows {@link PluginVersionSummary}. */
export class PluginVersionSummaryView implements Pick<
  PluginVersionSummary,
  'version' | 'sha256' | 'etag' | 'size' | 'hasManifest'
> {
  @ApiProperty() version!: string;
  @ApiProperty({ description: 'SHA-256 of the code, hex' }) sha256!: string;
  @ApiProperty() etag!: string;
  @ApiProperty({ type: 'integer', description: 'Bytes' }) size!: number;
  @ApiProperty() hasManifest!: boolean;
  @ApiProperty({ format: 'date-time' }) codeUploadedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  manifestUploadedAt!: string | null;
}

/** The versions of one plugin. */
export class PluginVersionsView {
  @ApiProperty() name!: string;
  @ApiProperty({ type: [PluginVersionSummaryView] }) items!: PluginVersionSummaryView[];
}
