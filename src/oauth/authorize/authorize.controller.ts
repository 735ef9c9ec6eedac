// The authorization endpoint: GET shows the consent page, POST carries the decision, one handler for
// /v1/oauth/authorize, /authorize and /oauth/authorize. The rules live in authorize.service.ts and
// the modules it puts together.
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { clientAddress } from '../../common/rate-limit';
import { bodyField } from '../../common/request-body';
import { sessionPerson, sessionSignIn, sessionUserId } from '../../session/session.middleware';
import type { DecisionHold } from '../../sign-in/journey.types';
import { signInLocation as journeySignIn, stepUpLocation as journeyStepUp } from '../../sign-in/journey.service';
import { displayName } from '../../users/users.types';
import type { Csrf } from '../../web/csrf';
import { pageError } from '../../web/layout';
import { collectParameters, parametersOf, type OAuthParameters } from '../oauth.parameters';
import { consentPage } from '../consent.page';
import { documentHost, isDocumentClientId } from '../clients/client-documents.service';
import { isLoopbackRedirect, redirectUrisOf } from '../clients/clients.service';
import { claimsBeyondScope } from '../oidc/claims.service';
import { formPostPage } from './form-post.page';
import type { Consent, Redirect, Refusal, SignedIn } from './authorization-request';
import type { AuthorizeService } from './authorize.service';
import { HTML_CONTENT_TYPE } from '../../web/html';

/** The request's parameters; a bad one is a refusal the pages' presenter words (the browser gets no redirect). */
const readParameters = (req: Request, source: 'query' | 'body'): OAuthParameters => collectParameters(req, [source]);

function answer(res: Response, outcome: Redirect | Refusal, status: 302 | 303 = 302): void {
  if (outcome.kind === 'refusal') {
    res.req.log.info({ refusal: outcome.title, reason: outcome.message }, 'authorization request refused');
    throw pageError(400, outcome.title, outcome.message);
  }
  if (outcome.kind === 'form_post') {
    const { page, contentSecurityPolicy } = formPostPage(outcome.action, outcome.fields);
    noStore(res).set('Content-Security-Policy', contentSecurityPolicy).type(HTML_CONTENT_TYPE).send(page);
    return;
  }
  res.redirect(status, outcome.location);
}

/** The paths of this endpoint (seed 001 names three), for recognising a request to come back to. */
export type AuthorizePaths = readonly string[];

/** The signed-in person of a browser session, with the time they signed in. */
async function signedIn(req: Request): Promise<(SignedIn & { name: string }) | null> {
  const user = await sessionPerson(req);
  if (!user) return null;
  return { userId: user._id, name: displayName(user), ...sessionSignIn(req) };
}

/**
 * This request to come back to by GET after signing in (its parameters in the query), without what
 * sent the person to sign in (`prompt=login` or `select_account`, `max_age`): a `prompt=consent`
 * stays, so the consent page is still shown after. Where the person goes is the sign-in journey's.
 */
function signInLocation(req: Request, parameters: OAuthParameters, loginHint?: string): string {
  const url = new URL(`${req.baseUrl}${req.path}?${new URLSearchParams(parameters).toString()}`, 'http://internal');
  const remaining = (url.searchParams.get('prompt') ?? '').split(' ').filter((value) => value === 'consent');
  url.searchParams.delete('prompt');
  if (remaining.length > 0) url.searchParams.set('prompt', remaining.join(' '));
  url.searchParams.delete('max_age');
  return journeySignIn(url.pathname + url.search, { loginHint, again: sessionUserId(req) !== undefined });
}

/** The second step for a signed-in person, then back to this request (by GET, its parameters in the query). */
const stepUpLocation = (req: Request, parameters: OAuthParameters): string =>
  journeyStepUp(`${req.baseUrl}${req.path}?${new URLSearchParams(parameters).toString()}`);

/**
 * Consent pages one person may open in a rate-limit window, how long one waits for its decision, and
 * the largest request kept.
 */
const CONSENT_LIMITS = { perPerson: 60, lifetimeMs: 10 * 60_000, requestBytes: 32 * 1024 };

/** Keeps the reviewed request for the page's decision, stored before the page goes out; the form's id for it. */
async function keepForDecision(decisions: DecisionHold, req: Request, parameters: OAuthParameters): Promise<string> {
  if (JSON.stringify(parameters).length > CONSENT_LIMITS.requestBytes) {
    throw pageError(400, 'Invalid authorization request', `The request's parameters are over ${CONSENT_LIMITS.requestBytes / 1024} kB.`);
  }
  return decisions.keep(req, parameters, CONSENT_LIMITS);
}

/** The consent page for a reviewed request, its parameters kept for the decision. */
async function showConsent(
  req: Request,
  res: Response,
  { csrf, decisions }: PageDeps,
  person: { name: string },
  { request, parameters }: Consent,
) {
  noStore(res)
    .type(HTML_CONTENT_TYPE)
    .send(
      consentPage({
        action: req.baseUrl + req.path,
        csrfToken: csrf.token(req, res),
        personName: person.name,
        switchAccount: signInLocation(req, parameters),
        clientName: request.client.name,
        clientWebsite: request.client.website,
        clientPages: request.client.metadata,
        scopes: request.scope,
        claims: claimsBeyondScope(request.scope, request.claims),
        fields: { consent: await keepForDecision(decisions, req, parameters) },
        destination: { redirectUri: request.redirectUri },
        document: isDocumentClientId(request.client._id)
          ? { host: documentHost(request.client._id), loopbackOnly: redirectUrisOf(request.client).every(isLoopbackRedirect) }
          : undefined,
      }),
    );
}

/** What the consent page needs: its form's CSRF token, and where its request waits for the decision. */
interface PageDeps {
  csrf: Csrf;
  decisions: DecisionHold;
}

export function createAuthorizeController(authorize: AuthorizeService, pages: PageDeps, paths: AuthorizePaths) {
  return {
    /**
     * The sign-in journey's last step came from a request to this endpoint (`location`, a local path
     * with its parameters): when the request needs nothing more of the person (consent remembered),
     * it is answered now, in the sign-in's own response, sparing the browser the trip back here and
     * the session's read; true then. False when it would show a page or ask for more, or names a
     * request object (opening one twice would fetch it twice): the journey sends the browser back by
     * GET, as before. Nothing is written unless it answers.
     */
    async resume(req: Request, res: Response, location: string): Promise<boolean> {
      const url = new URL(location, 'http://internal');
      if (!paths.includes(url.pathname)) return false;
      let parameters: OAuthParameters;
      try {
        parameters = parametersOf(url.searchParams);
      } catch {
        return false;
      }
      if ('request' in parameters || 'request_uri' in parameters) return false;
      const person = await signedIn(req);
      if (!person) return false;
      const reviewed = await authorize.review(parameters, true, clientAddress(req));
      if (reviewed.kind !== 'consent') return false;
      const next = await authorize.beforeConsent(reviewed.request, person);
      if (typeof next !== 'object') return false;
      answer(res, next, req.method === 'GET' ? 302 : 303);
      return true;
    },

    async show(req: Request, res: Response): Promise<void> {
      const person = await signedIn(req);
      const parameters = readParameters(req, req.method === 'POST' ? 'body' : 'query');
      const reviewed = await authorize.review(parameters, person !== null, clientAddress(req));
      if (reviewed.kind !== 'consent') return answer(res, reviewed);
      const { request } = reviewed;
      const next = await authorize.beforeConsent(request, person);
      if (typeof next === 'object') return answer(res, next);
      // 'consent' comes only with a signed-in person.
      if (next === 'sign-in' || !person) return res.redirect(302, signInLocation(req, reviewed.parameters, request.loginHint));
      if (next === 'step-up') return res.redirect(302, stepUpLocation(req, reviewed.parameters));
      await showConsent(req, res, pages, person, reviewed);
    },

    async decide(req: Request, res: Response): Promise<void> {
      const person = await signedIn(req);
      if (!person) return res.redirect(303, '/login');
      const parameters = await pages.decisions.take(req, bodyField(req, 'consent'));
      if (!parameters) {
        throw pageError(400, 'This page has expired', 'Go back to the application and start signing in again.');
      }
      const outcome = await authorize.decide(parameters, bodyField(req, 'decision'), person, clientAddress(req));
      if (outcome === 'sign-in') return res.redirect(303, signInLocation(req, parameters));
      if (outcome === 'step-up') return res.redirect(303, stepUpLocation(req, parameters));
      answer(res, outcome);
    },
  };
}
