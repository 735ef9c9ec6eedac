// POST /auth's field rules; the same schema is its request body in auth.openapi.ts.
import { emailField, type FieldRules, inBody, MAX_PASSWORD_LENGTH } from '../common/validation';

export const login: FieldRules = {
  email: emailField('required'),
  password: {
    ...inBody('required', 'Must include password'),
    isString: { errorMessage: 'Password must be a string', bail: true },
    isLength: { options: { max: MAX_PASSWORD_LENGTH }, errorMessage: `Password must be at most ${MAX_PASSWORD_LENGTH} characters` },
  },
};
