// Where a sign-in page sends the browser once it is done: `return_to`, a local path, on a link or in a
// form. Any value is taken, and one that is not a local path (session.service.ts `safeReturnTo`)
// goes to /home, so a mangled link still signs the person in.
import { anyTextField } from '../common/request-fields';

export const RETURN_TO = anyTextField('A local path to go to once signed in; any other value goes to /home');
