/** Names one saved version of an extension: its publisher (client id), its id and version. */
export interface ExtensionReference {
  publisher: string;
  dataId: string;
  version: string;
}
