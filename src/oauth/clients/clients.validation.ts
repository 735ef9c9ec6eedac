// The field rules of client registration (POST /oauth/clients and `npm run oauth:client`); the same
// schema is the operation's request body in oauth.openapi.ts.
import { customRule, type FieldRules, pageRules } from '../../common/validation';
import { isRegistrableRedirectUri, REDIRECT_URI_RULE } from './clients.service';
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

const isGrantList = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every((grant) => (GRANT_TYPES as readonly unknown[]).includes(grant));

export const registerClient: FieldRules = {
  name: {
    in: ['body'],
    isString: { errorMessage: 'name must be a string', bail: true },
    trim: true,
    isLength: {
      options: { min: 1, max: LIMITS.clientNameLength },
      errorMessage: `name must be 1 to ${LIMITS.clientNameLength} characters`,
    },
  },
  website: {
    in: ['body'],
    custom: customRule(httpUrl, 'website must be an absolute http(s) URL', {
      type: 'string',
      format: 'uri',
      maxLength: MAX_URL_LENGTH,
    }),
  },
  redirect_uri: {
    in: ['body'],
    custom: customRule(
      isRegistrableRedirectUri,
      `redirect_uri must be ${REDIRECT_URI_RULE}`,
      { type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH, description: REDIRECT_URI_RULE },
      true,
    ),
  },
  grants: {
    in: ['body'],
    optional: true,
    custom: customRule(isGrantList, `grants must be a non-empty list of ${GRANT_TYPES.join(', ')}`, {
      type: 'array',
      items: { type: 'string', enum: [...GRANT_TYPES] },
      minItems: 1,
    }),
  },
};

/** GET /oauth/clients: `?limit=&page=`. */
export const listClients: FieldRules = pageRules(LIMITS.pageSize);
