export {
  SluiceError,
  InputError,
  AuthenticationError,
  NotAllowedError,
  NotFoundError,
  ConflictError,
  UnavailableError,
  InternalError,
  isSluiceError,
  exitCodeFor,
  describeError,
} from './sluice-error.js';
export type { ErrorCategory, ErrorDetails, SluiceErrorOptions } from './sluice-error.js';
export { closest, didYouMean, editDistance } from './suggest.js';
export { positionIndex } from './text-position.js';
export type { TextPosition } from './text-position.js';
