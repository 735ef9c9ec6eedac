// The admin API's roles: define, list and delete them; give one to a person and take it back. Errors
// in the OAuth shape ({ error, error_description }), as everywhere a bearer token is the credential.
// Giving and taking are events in the person's activity, naming the application that did it.
import { readQuery } from '../../common/request-fields';
import type { Request, Response } from 'express';
import type { ActivityLog } from '../../account/activity.service';
import { AppError } from '../../common/errors';
import { noStore } from '../../common/no-store';
import { displayAddress } from '../../common/rate-limit';
import type { AccessGrant } from '../tokens/tokens.service';
import * as usersService from '../../users/users.service';
import * as rolesService from './roles.service';

const invalid = (description: string, status = 400, error = 'invalid_request') =>
  new AppError(status, { error, error_description: description });
const notFound = (description: string) => invalid(description, 404, 'not_found');

export function createRolesController(activity: ActivityLog) {
  async function person(req: Request) {
    const user = await usersService.findById(String(req.params.id));
    if (!user) throw notFound(`No person ${String(req.params.id).slice(0, 100)}`);
    return user;
  }

  async function change(req: Request, res: Response, held: boolean) {
    const user = await person(req);
    const name = String(req.params.name);
    if (!(await rolesService.known(name))) throw notFound(`No role ${name.slice(0, 100)}`);
    if (!(await usersService.setRole(user._id, name, held))) throw notFound(`No person ${user._id}`);
    // A role deleted meanwhile is taken back, as its deletion took it from everyone.
    if (held && !(await rolesService.known(name))) await usersService.setRole(user._id, name, false);
    await activity.record(user._id, held ? 'role-given' : 'role-taken', by(req, res, name));
    res.status(204).end();
  }

  /** The event's origin: the operator's client that holds the token (docs/operations.md: every change is an event naming who). */
  function by(req: Request, res: Response, what: string) {
    const { clientId } = res.locals.oauthGrant as AccessGrant;
    return { address: displayAddress(req), detail: `${what}, by ${clientId}`, actor: `client:${clientId}`, clientId };
  }

  return {
    /** GET /admin/api/roles?limit&after */
    async list(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(rolesService.ROLES_QUERY, req);
      noStore(res).json(await rolesService.page(limit, after));
    },

    /** POST /admin/api/roles: { name, description? } */
    async create(req: Request, res: Response): Promise<void> {
      const role = await rolesService.define(req.body);
      await activity.record(null, 'role-defined', by(req, res, role.name));
      noStore(res).status(201).json(role);
    },

    /** DELETE /admin/api/roles/:name: taken from everyone who held it. */
    async remove(req: Request, res: Response): Promise<void> {
      const name = String(req.params.name);
      const removed = await rolesService.remove(name);
      if (removed === 'built-in') throw invalid('admin is built in: take it from people instead', 409);
      if (!removed) throw notFound(`No role ${name.slice(0, 100)}`);
      await activity.record(null, 'role-deleted', by(req, res, name));
      res.status(204).end();
    },

    /** GET /admin/api/people/:id/roles */
    async ofPerson(req: Request, res: Response): Promise<void> {
      noStore(res).json({ roles: usersService.rolesOf(await person(req)) });
    },

    /** PUT /admin/api/people/:id/roles/:name */
    give: (req: Request, res: Response) => change(req, res, true),
    /** DELETE /admin/api/people/:id/roles/:name */
    take: (req: Request, res: Response) => change(req, res, false),
  };
}
