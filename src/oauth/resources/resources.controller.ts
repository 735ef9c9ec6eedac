// The admin API's resources (RFC 8707 APIs): list a page, register one, delete one. Errors in the
// OAuth shape ({ error, error_description }), as everywhere a bearer token is the credential.
import { readQuery } from '../../common/request-fields';
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { AppError } from '../../common/errors';
import type { Config } from '../../config';
import * as resourcesService from './resources.service';

const invalid = (description: string, status = 400) => new AppError(status, { error: 'invalid_request', error_description: description });

export function createResourcesController(config: Pick<Config, 'publicUrl'>) {
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
      const body = (req.body ?? {}) as Record<string, unknown>;
      const { resource, scopes, format, access_token_lifetime: lifetime, signing_alg: alg } = body;
      if (typeof resource !== 'string') throw invalid('resource must be a string (an absolute URI)');
      if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string'))
        throw invalid('scopes must be an array of strings');
      if (format !== undefined && typeof format !== 'string') throw invalid('format must be jwt or opaque');
      if (lifetime !== undefined && typeof lifetime !== 'number') throw invalid('access_token_lifetime must be a number of seconds');
      if (alg !== undefined && typeof alg !== 'string') throw invalid('signing_alg must be a string');
      const created = await resourcesService.create(config, {
        id: resource,
        scopes,
        format,
        accessTokenLifetime: lifetime,
        signingAlg: alg,
      });
      noStore(res).status(201).json(resourcesService.resourceView(created));
    },

    /** DELETE /admin/api/resources/:id (the identifier URL-encoded): tokens issued for it live out their time. */
    async remove(req: Request, res: Response): Promise<void> {
      const id = String(req.params.id);
      if (!(await resourcesService.remove(id)))
        throw new AppError(404, { error: 'not_found', error_description: `No resource ${id.slice(0, 200)}` });
      res.status(204).end();
    },
  };
}
