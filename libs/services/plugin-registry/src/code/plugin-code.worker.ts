import { checkPluginCode } from './plugin-code.validator';

/** What a plugin-code check thread runs for each upload (`PluginCodeChecker`). */
export default checkPluginCode;
