// The admin API's resources (RFC 8707 APIs): list a page, register one, delete one. Errors in the
// OAuth shape ({ error, error_description }), as everywhere a bearer token is the credential.
import { readQuery } from '../../common/request-fields';
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { AppError } from '../../common/errors';
import type { Config } from '../../config';
import type { ActivityLog } from '../../account/activity.service';
import { displayAddress } from '../../common/rate-limit';
import type { AccessGrant } from '../tokens/tokens.service';
import * as resourcesService from './resources.service';

export function createResourcesController(config: Pick<Config, 'publicUrl'>, activity: ActivityLog) {
  /** The event's origin: the operator's client that holds the token (every change is an event naming who). */
  const by = (req: Request, res: Response, what: string) => {
    const { clientId } = res.locals.oauthGrant as AccessGrant;
    return { address: displayAddress(req), detail: `${what}, by ${clientId}`, actor: `client:${clientId}`, clientId };
  };
  return {
    /** GET /admin/api/resources?limit&after: in identifier order; `next` is the `after` of the next page. */
    async list(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(resourcesService.RESOURCES_QUERY, req);
      const page = await resourcesService.page(limit + 1, after);
      const shown = page.slice(0, limit);
      noStore(res).json({
        resources: shown.map(resourcesService.resourceView),
        next: page.length > limit ? shown[shown.length - 1].id : null,
      });
    },

    /** POST /admin/api/resources: { resource, scopes, format?, access_token_lifetime?, signing_alg? }. */
    async create(req: Request, res: Response): Promise<void> {
      const created = await resourcesService.create(config, req.body);
      await activity.record(null, 'resource-registered', by(req, res, created.id));
      noStore(res).status(201).json(resourcesService.resourceView(created));
    },

    /** DELETE /admin/api/resources/:id (the identifier URL-encoded): tokens issued for it live out their time. */
    async remove(req: Request, res: Response): Promise<void> {
      const id = String(req.params.id);
      if (!(await resourcesService.remove(id)))
        throw new AppError(404, { error: 'not_found', error_description: `No resource ${id.slice(0, 200)}` });
      await activity.record(null, 'resource-deleted', by(req, res, id));
      res.status(204).end();
    },
  };
}
