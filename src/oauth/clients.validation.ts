import { body } from 'express-validator';
import { GRANT_TYPES } from './oauth.model';

const MAX_URL_LENGTH = 2048;

function httpUrl(value: unknown, allowFragment: boolean): boolean {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && (allowFragment || url.hash === '' && !value.includes('#'));
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
    .isLength({ min: 1, max: 100 })
    .withMessage('name must be 1 to 100 characters'),
  body('website').custom((value) => httpUrl(value, true)).withMessage('website must be an absolute http(s) URL'),
  // RFC 6749 §3.1.2: an absolute URI without a fragment.
  body('redirect_uri').custom((value) => httpUrl(value, false)).withMessage('redirect_uri must be an absolute http(s) URL without a fragment'),
  body('grants')
    .optional()
    .custom(
      (value) =>
        Array.isArray(value) && value.length > 0 && value.every((grant) => (GRANT_TYPES as readonly unknown[]).includes(grant)),
    )
    .withMessage(`grants must be a non-empty list of ${GRANT_TYPES.join(', ')}`),
];
