// The authorization endpoint: GET shows the consent page, POST carries the decision, one handler for
// /v1/oauth/authorize, /authorize and /oauth/authorize. The rules live in authorize.service.ts.
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import type { Csrf } from '../../web/csrf';
import * as sessionService from '../../session/session.service';
import { pageError } from '../../web/layout';
import { OAuthErrorResponse } from '../oauth.errors';
import { collectParameters, type Parameters } from '../oauth.parameters';
import { consentPage } from './authorize.page';
import { consentFields, review, type AuthorizeService, type Redirect, type Refusal } from './authorize.service';

function readParameters(req: Request, source: 'query' | 'body'): Parameters {
  try {
    return collectParameters(req, [source]);
  } catch (err) {
    if (err instanceof OAuthErrorResponse)
      throw pageError(400, 'Invalid authorization request', (err.body as { error_description: string }).error_description);
    throw err;
  }
}

function answer(res: Response, outcome: Redirect | Refusal): void {
  if (outcome.kind === 'refusal') throw pageError(400, outcome.title, outcome.message);
  res.redirect(302, outcome.location);
}

export function createAuthorizeController(authorize: AuthorizeService, csrf: Csrf) {
  return {
    async show(req: Request, res: Response): Promise<void> {
      const reviewed = await review(readParameters(req, 'query'));
      if (reviewed.kind !== 'consent') return answer(res, reviewed);
      const user = await sessionService.currentUser(req.session);
      if (!user) return res.redirect(302, `/login?return_to=${encodeURIComponent(req.originalUrl)}`);
      const { request } = reviewed;
      noStore(res)
        .type('text/html; charset=utf-8')
        .send(
          consentPage({
            action: req.baseUrl + req.path,
            csrfToken: csrf.token(req, res),
            clientName: request.client.name,
            clientWebsite: request.client.website,
            scopes: request.scope,
            fields: consentFields(request),
          }),
        );
    },

    async decide(req: Request, res: Response): Promise<void> {
      const parameters = readParameters(req, 'body');
      const user = await sessionService.currentUser(req.session);
      if (!user) return res.redirect(303, '/login');
      answer(res, await authorize.decide(parameters, user._id));
    },
  };
}
