// GET /dev/mail, outside production only and from this machine only: the development outbox, newest
// first, with its links clickable, so a developer can follow a verification or reset mail without an
// SMTP server. Its links sign people in: any other address gets the 404 of a route that is not there.
import { Router, type Request } from 'express';
import { noStore } from '../common/no-store';
import { HTML_CONTENT_TYPE, html } from '../web/html';
import { layout } from '../web/layout';
import type { Mailer, OutboxMessage } from './mailer';

const LINK = /(https?:\/\/[^\s<>"]+)/;

function body(text: string) {
  return text.split(LINK).map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : part));
}

function outboxPage(messages: OutboxMessage[]): string {
  return layout(
    'Development outbox',
    html`<h1>Development outbox</h1>
<p>Mail this server would have sent (no SMTP_URL is set). Only the newest 50 are kept, in memory, until the server stops.</p>
${
  messages.length === 0
    ? html`<p>No mail yet.</p>`
    : messages.map(
        (message) => html`<article>
<h2>${message.subject}</h2>
<p>To ${message.to}, <time datetime="${message.at.toISOString()}">${message.at.toISOString()}</time></p>
<pre>${body(message.text)}</pre>
</article>`,
      )
}`,
    { wide: true },
  );
}

/** The connection and, behind a trusted proxy, the client it names both come from this machine. */
function fromThisMachine(req: Request): boolean {
  return [req.socket.remoteAddress, req.ip].every((address) => address !== undefined && isLoopback(address));
}

const isLoopback = (address: string) => /^(127\.|::ffff:127\.)/.test(address) || address === '::1';

export function createDevMailRouter(mailer: Mailer): Router {
  const router = Router();
  router.get('/dev/mail', (req, res, next) => {
    if (!fromThisMachine(req)) return next();
    noStore(res)
      .type(HTML_CONTENT_TYPE)
      .send(outboxPage(mailer.outbox() ?? []));
  });
  return router;
}
