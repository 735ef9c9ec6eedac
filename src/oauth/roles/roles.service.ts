// Roles (docs/oauth.md, Roles): operators define them, give them to people and take them back; an
// application with the `roles` scope reads them in the `roles` claim. `admin` is built in, and like
// every role only an operator gives it: seed 000's permissionFlags, which anyone may write while the
// users API is open, never make an admin.
import { LIMITS } from '../protocol';
import { limitField, readBody, stringField, textField } from '../../common/request-fields';
import { Refusal } from '../../common/refusals';
import * as usersService from '../../users/users.service';
import * as rolesStore from './roles.store';

const MAX_ROLE_NAME = 64;

/** GET /admin/api/roles's query: a page of roles after a role's name. */
export const ROLES_QUERY = {
  limit: limitField(LIMITS.pageSize),
  after: textField('The `next` of the previous page', MAX_ROLE_NAME),
} as const;

export const ROLE_RULES = {
  /** How a role is named: what the claim carries and the admin API's paths hold. */
  name: new RegExp(`^[a-z][a-z0-9_.:-]{0,${MAX_ROLE_NAME - 1}}$`),
  maxName: MAX_ROLE_NAME,
  nameText: `1 to ${MAX_ROLE_NAME} lower-case letters, digits and _ . : - (starting with a letter)`,
  maxDescription: 200,
  /** Roles an operator may define, besides admin. */
  max: 100,
} as const;

/** POST /admin/api/roles's body: a name and, optionally, what the role is for. */
export const NEW_ROLE = {
  fields: {
    name: stringField('The role, as the roles claim carries it', {
      minLength: 1,
      maxLength: MAX_ROLE_NAME,
      pattern: ROLE_RULES.name,
      rule: ROLE_RULES.nameText,
    }),
    description: stringField('What the role is for', {
      maxLength: ROLE_RULES.maxDescription,
      rule: `text of at most ${ROLE_RULES.maxDescription} characters`,
    }),
  },
  required: ['name'],
} as const;

export class RoleInputError extends Refusal {
  constructor(message: string) {
    super('invalid', message);
  }
}
export class RoleExistsError extends Refusal {
  constructor(message: string) {
    super('conflict', message);
  }
}

export interface RoleView {
  name: string;
  description: string;
  built_in: boolean;
}

const ADMIN_VIEW: RoleView = {
  name: usersService.ADMIN_ROLE,
  description: 'Administers this server: the console and the admin API',
  built_in: true,
};

/** A page of roles in name order, `admin` first; `next` names the last one when more follow. */
export async function page(limit: number, after?: string): Promise<{ roles: RoleView[]; next: string | null }> {
  const withAdmin = after === undefined;
  const stored = await rolesStore.page(limit + (withAdmin ? 0 : 1), after);
  const all = [
    ...(withAdmin ? [ADMIN_VIEW] : []),
    ...stored.map((role) => ({ name: role._id, description: role.description, built_in: false })),
  ];
  const shown = all.slice(0, limit);
  return { roles: shown, next: all.length > limit ? shown[shown.length - 1].name : null };
}

/** Defines a role from a body (NEW_ROLE's rules; a Refusal names what breaks one). */
export async function define(body: unknown, now = new Date()): Promise<RoleView> {
  const read = readBody(NEW_ROLE.fields, NEW_ROLE.required, body);
  const name = read.name!;
  const description = read.description ?? '';
  if (name === usersService.ADMIN_ROLE) throw new RoleExistsError('admin is built in');
  if ((await rolesStore.count()) >= ROLE_RULES.max) throw new RoleInputError(`at most ${ROLE_RULES.max} roles may be defined`);
  if (!(await rolesStore.insert({ _id: name, description, createdAt: now }))) throw new RoleExistsError(`A role named ${name} exists`);
  return { name, description, built_in: false };
}

/** Deletes the role and takes it from everyone; false when there is none (admin cannot be deleted). */
export async function remove(name: string): Promise<boolean | 'built-in'> {
  if (name === usersService.ADMIN_ROLE) return 'built-in';
  if (!(await rolesStore.remove(name))) return false;
  await usersService.dropRole(name);
  return true;
}

/** Whether a role of that name can be given: admin, or a defined one. */
export async function known(name: string): Promise<boolean> {
  return name === usersService.ADMIN_ROLE || (ROLE_RULES.name.test(name) && (await rolesStore.exists(name)));
}
