// The verification page's query, declared once (common/request-fields.ts): the user code to fill in,
// as verification_uri_complete carries it.
import { onPage, stringField } from '../../common/request-fields';
import { MAX_TYPED_USER_CODE_LENGTH } from '../protocol';

export const VERIFICATION_QUERY = {
  user_code: onPage(stringField('The user code to fill in (verification_uri_complete)', { maxLength: MAX_TYPED_USER_CODE_LENGTH })),
};
