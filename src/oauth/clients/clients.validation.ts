import { body } from 'express-validator';
import { isRegistrableRedirectUri, normalizeRedirectUri, REDIRECT_URI_RULE } from './clients.service';
import { GRANT_TYPES, LIMITS } from '../protocol';

const MAX_URL_LENGTH = LIMITS.redirectUriLength;

/** An absolute http(s) URL typed as it is meant: no control characters or spaces (which URL parsing would silently drop). */
function httpUrl(value: unknown): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH || /[\x00-\x20\x7f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export const registerClient = [
  body('name')
    .isString()
    .withMessage('name must be a string')
    .bail()
    .trim()
    .isLength({ min: 1, max: LIMITS.clientNameLength })
    .withMessage(`name must be 1 to ${LIMITS.clientNameLength} characters`),
  body('website').custom(httpUrl).withMessage('website must be an absolute http(s) URL'),
  body('redirect_uri')
    .custom(isRegistrableRedirectUri)
    .withMessage(`redirect_uri must be ${REDIRECT_URI_RULE}`)
    .bail()
    .customSanitizer(normalizeRedirectUri),
  body('grants')
    .optional()
    .custom(
      (value) => Array.isArray(value) && value.length > 0 && value.every((grant) => (GRANT_TYPES as readonly unknown[]).includes(grant)),
    )
    .withMessage(`grants must be a non-empty list of ${GRANT_TYPES.join(', ')}`),
];
