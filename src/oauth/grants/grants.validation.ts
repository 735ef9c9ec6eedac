// GET /oauth/grants: `?limit=&page=`; the same schema is the operation's parameters in oauth.openapi.ts.
import { type FieldRules, pageRules } from '../../common/validation';
import { LIMITS } from '../protocol';

export const listGrants: FieldRules = pageRules(LIMITS.pageSize);
