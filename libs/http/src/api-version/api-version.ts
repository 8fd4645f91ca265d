export const API_VERSION_HEADER = 'x-api-version';
export const SUPPORTED_API_VERSION = '0';

/** Always exempt from the version check: probes of orchestrators send no headers. */
export const ALWAYS_VERSION_EXEMPT_PATHS: readonly string[] = ['/health/'];

export const ApiVersion = {
  header: API_VERSION_HEADER,
  supported: SUPPORTED_API_VERSION,
} as const;
