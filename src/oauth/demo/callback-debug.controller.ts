// GET shows an authorization response and the exchange form; POST performs the exchange against this
// server's own token endpoint over loopback, so it is the same request a client application sends.
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { readForm } from '../../common/request-fields';
import { CALLBACK_EXCHANGE_FORM, MAX_FIELD_LENGTH } from './callback-debug.fields';
import type { Config } from '../../config';
import type { Csrf } from '../../web/csrf';
import { callbackDebugPage } from './callback-debug.page';
import { CALLBACK_DEBUG_PATH, DEMO_CLIENT, exchangeCode, type CodeExchangeForm } from './demo.service';
import { HTML_CONTENT_TYPE } from '../../web/html';

const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_FIELD_LENGTH) : '');

export function createCallbackDebugController(config: Config, csrf: Csrf) {
  const redirectUri = `${config.publicUrl}${CALLBACK_DEBUG_PATH}`;
  const defaults = (code: string): CodeExchangeForm => ({
    code,
    redirect_uri: redirectUri,
    client_id: DEMO_CLIENT.id,
    client_secret: DEMO_CLIENT.secret,
    code_verifier: '',
  });
  const startUrl = () =>
    `/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: DEMO_CLIENT.id,
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      state: randomBytes(8).toString('hex'),
      nonce: randomBytes(8).toString('hex'),
    }).toString()}`;

  function render(req: Request, res: Response, view: Omit<Parameters<typeof callbackDebugPage>[0], 'csrfToken' | 'startUrl'>) {
    noStore(res)
      .type(HTML_CONTENT_TYPE)
      .send(callbackDebugPage({ ...view, csrfToken: csrf.token(req, res), startUrl: startUrl() }));
  }

  return {
    show(req: Request, res: Response): void {
      const received = Object.fromEntries(Object.entries(req.query).map(([name, value]) => [name, text(value)]));
      render(req, res, { received, form: defaults(received.code ?? '') });
    },

    async exchange(req: Request, res: Response): Promise<void> {
      const typed = readForm(CALLBACK_EXCHANGE_FORM, req);
      const form: CodeExchangeForm = {
        code: typed.code ?? '',
        redirect_uri: typed.redirect_uri ?? '',
        client_id: typed.client_id ?? '',
        client_secret: typed.client_secret ?? '',
        code_verifier: typed.code_verifier ?? '',
      };
      // This server's own listener, whatever PUBLIC_URL says (a proxy in front may not be reachable from here).
      const result = await exchangeCode(`http://127.0.0.1:${req.socket.localPort}/oauth/token`, form);
      // The form starts over with the demo's values: a secret typed in is never sent back.
      render(req, res, { received: {}, form: defaults(''), result });
    },
  };
}
