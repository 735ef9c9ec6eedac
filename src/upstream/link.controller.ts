// The link prompt (sign-in/prompt-policy.service.ts `link`): a provider account whose verified email is
// an account's here waits, as the browser's interaction, for the account's password at /login/link;
// then the link, then the journey's next step. Cancel ends it at once.
import type { Request, Response } from 'express';
import type { ActivityLog } from '../account/activity.service';
import type { Clock } from '../common/clock';
import { noStore } from '../common/no-store';
import { clientAddress, displayAddress } from '../common/rate-limit';
import { readForm } from '../common/request-fields';
import type { Config } from '../config';
import type { Journey } from '../sign-in/journey.types';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { HTML_CONTENT_TYPE } from '../web/html';
import { STATE_LIFETIME_MS } from './upstream-state';
import { CANCEL_LINK_FORM, LINK_FORM } from './upstream.fields';
import { linkPage, linkRefusedPage } from './upstream.page';
import * as upstreamService from './upstream.service';
import type { PendingLink } from './upstream.types';

export interface LinkDeps {
  config: Config;
  clock: Clock;
  journey: Journey;
  csrf: Csrf;
  activity: ActivityLog;
  verifyPerson: PersonVerifier;
}

export function createLinkController({ config, clock, journey, csrf, activity, verifyPerson }: LinkDeps) {
  const providers = new Map(config.upstream.providers.map((provider) => [provider.id, provider]));
  const origin = (req: Request, detail: string) => ({ address: displayAddress(req), detail });

  /** A pending link, while it is fresh. */
  async function pendingLink(req: Request): Promise<PendingLink | null> {
    const pending = await journey.pendingLink(req);
    return pending && clock.now() - pending.at < STATE_LIFETIME_MS && providers.has(pending.provider) ? pending : null;
  }

  async function showLinkPage(req: Request, res: Response, pending: PendingLink, status = 200, problem?: string) {
    const hasPassword = await usersService.hasDirectWayIn(pending.userId);
    const view = {
      csrfToken: csrf.token(req, res),
      providerName: providers.get(pending.provider)!.name,
      email: pending.email,
      hasPassword,
      problem,
    };
    noStore(res).status(status).type(HTML_CONTENT_TYPE).send(linkPage(view));
  }

  return {
    async showLink(req: Request, res: Response): Promise<void> {
      const pending = await pendingLink(req);
      if (!pending) return void res.redirect(302, '/login');
      await showLinkPage(req, res, pending);
    },

    /** POST /login/link: the account's password, then the link, then the journey's next step. */
    async link(req: Request, res: Response): Promise<void> {
      const { password } = readForm(LINK_FORM, req);
      const pending = await pendingLink(req);
      if (!pending) return void res.redirect(303, '/login');
      const person = password === undefined ? null : await verifyPerson({ email: pending.email, password, address: clientAddress(req) });
      if (person?.userId !== pending.userId) return showLinkPage(req, res, pending, 401, 'Wrong password.');
      const provider = providers.get(pending.provider)!;
      // Used once: of two requests with the right password at the same moment, one links.
      if (!(await journey.endInteraction(req, res))) return void res.redirect(303, '/login');
      const refusal = await upstreamService.link(provider, pending, pending.userId, new Date(clock.now()));
      if (refusal) throw linkRefusedPage(provider.name, refusal);
      await activity.record(pending.userId, 'provider-linked', origin(req, provider.name));
      await journey.firstFactor(req, res, {
        ...person,
        method: 'fed',
        amr: [...pending.amr, 'pwd'],
        remember: true,
        returnTo: pending.returnTo,
        via: `${provider.name} and password`,
        active: true,
      });
    },

    /** Cancel on the link page: the pending link ends now rather than in 10 minutes; back to the sign-in page. */
    async cancelLink(req: Request, res: Response): Promise<void> {
      readForm(CANCEL_LINK_FORM, req);
      await journey.endInteraction(req, res);
      res.redirect(303, '/login');
    },
  };
}
