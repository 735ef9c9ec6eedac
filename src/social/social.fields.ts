// GET /auth/:provider's query, declared once (common/request-fields.ts): the start link's return_to,
// and the provider's callback parameters, which passport reads (the state against this browser's
// cookie, provider-state.ts).
import { anyTextField } from '../common/request-fields';
import { RETURN_TO } from '../web/return-to';

export const PROVIDER_QUERY = {
  return_to: { ...RETURN_TO, description: `${RETURN_TO.description} (the start link)` },
  code: anyTextField("The provider's authorization code (the callback)"),
  state: anyTextField('The state this browser left with (the callback, with code); another is answered 400 invalid_state'),
  error: anyTextField("The provider's refusal (the callback): access_denied when the person said no"),
};
