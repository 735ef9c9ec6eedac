// What the browser's account pages need of the users feature's field rules: the sign-up page checks
// a form with exactly the rules and messages of POST /users (users.validation.ts), and the password
// forms with its password rule; the profile form with the claims' rules (users.claims.ts).
import { problemsWith } from '../common/validation';
import { CLAIM_RULES, MAX_CLAIM_LENGTH, claimsProblem, storedClaims } from './users.claims';
import { MAX_NAME_LENGTH, createUser } from './users.validation';
import type { StoredClaims } from './users.claims';

export { ADDRESS_FIELDS, CLAIM_FIELDS, CLAIM_RULES, MAX_CLAIM_LENGTH } from './users.claims';
export { MAX_NAME_LENGTH };

/** The sign-up form's fields as POST /users takes them. */
export interface SignUpFields {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}

/** POST /users's messages for what is wrong with these fields (empty: acceptable). */
export function signUpProblems(fields: SignUpFields): Promise<string[]> {
  return problemsWith(createUser, { ...fields });
}

/** POST /users's message for a password it would refuse, or null. */
export async function passwordProblem(password: string): Promise<string | null> {
  const [problem] = await problemsWith({ password: createUser.password }, { password });
  return problem ?? null;
}

/** POST /users's message for an email it would refuse (look-alikes, control characters), or null. */
export async function emailProblem(email: string): Promise<string | null> {
  const [problem] = await problemsWith({ email: createUser.email }, { email });
  return problem ?? null;
}

/** The message for a first or last name POST /users would refuse, or null. */
export async function nameProblem(field: 'firstName' | 'lastName', value: string): Promise<string | null> {
  const [problem] = await problemsWith({ [field]: createUser[field] }, { [field]: value });
  return problem ?? null;
}

/** The claims' problem (users.claims.ts), or the claims as they would be stored. */
export function checkedClaims(value: Record<string, unknown>): { problem: string } | { claims: StoredClaims } {
  const problem = claimsProblem(value);
  return problem ? { problem } : { claims: storedClaims(value) };
}

/** The picture (OpenID Connect's `picture`, stored as avatarUrl) follows the claims' URL rule. */
export const PICTURE_RULE = `picture must be ${CLAIM_RULES.website.rule}, at most ${MAX_CLAIM_LENGTH} characters`;
export const isPictureUrl = (value: string): boolean => value.length <= MAX_CLAIM_LENGTH && CLAIM_RULES.website.check(value);
