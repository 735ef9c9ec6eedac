// The frame of every server-rendered page (small, accessible, readable without JavaScript), the
// error page, and the CSRF field of every form.
import { createHash } from 'node:crypto';
import { AppError } from '../common/errors';
import { tooManyRequestsAs, type TooManyRequestsError } from '../common/rate-limit';
import { presenter, STATUS_OF } from '../common/refusals';
import { HTML_CONTENT_TYPE, html, type SafeHtml } from './html';

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24;line-height:1.5}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0002;overflow-wrap:break-word}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],input[type=text],input[type=url],textarea,select{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #8a949e;border-radius:.3rem}
.check{display:flex;gap:.4rem;align-items:center;font-weight:400}.row{display:flex;gap:.6rem;margin-top:1.2rem}.row a,.row span{align-self:center}.row span{min-width:0;overflow-wrap:anywhere}
button{font-size:1rem;padding:.5rem 1.2rem;border-radius:.3rem;border:1px solid #1b5fb8;background:#1b5fb8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1b5fb8}.error{color:#a61b1b;background:#fdecec;padding:.5rem;border-radius:.3rem}
a{color:#1b5fb8}ul{padding-left:1.2rem}main.wide{max-width:52rem}h3{font-size:1rem;margin-bottom:0}h2{font-size:1.1rem;margin-top:1.8rem}
ul.apps,ul.providers{list-style:none;padding:0}ul.providers li{margin:.4rem 0}ul.apps li{border-top:1px solid #dde1e6;padding:.4rem 0}ul.apps p{margin:.3rem 0}time{white-space:nowrap}
img.logo{width:4rem;height:4rem;object-fit:contain;float:right;margin-left:1rem}
.notice{color:#145c2e;background:#e6f4ea;padding:.5rem;border-radius:.3rem}.hint{font-size:.9rem;color:#4a525a;margin:.2rem 0}
fieldset{border:1px solid #dde1e6;border-radius:.3rem;margin:1rem 0 0;padding:.2rem .8rem .8rem}legend{font-weight:600}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
form.row input{flex:1}ul.codes{columns:2;font-size:1.1rem}figure.qr{margin:1rem 0}figure.qr svg{width:12rem;height:12rem}
pre{background:#f0f2f5;padding:.6rem;border-radius:.3rem;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}
form.inline{display:inline-block;margin-left:.4rem}fieldset+button{margin-top:.8rem}code{overflow-wrap:anywhere}dl.details dt{font-weight:600;margin-top:.4rem}dl.details dd{margin:0;overflow-wrap:anywhere}`;

/** For the content security policy, which allows this one inline stylesheet and no other. */
export const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export function layout(title: string, body: SafeHtml, options: { wide?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body><main${options.wide ? html` class="wide"` : ''}>${body}</main></body>
</html>`.value;
}

/** The hidden field that carries the CSRF token in every form (see session/csrf.ts). */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A way on from an error page: where to go, in words. */
export interface PageLink {
  href: string;
  label: string;
}

export function errorPage(title: string, message: string, links: readonly PageLink[] = []): string {
  const onward = links.length ? html`<p class="row">${links.map((link) => html`<a href="${link.href}">${link.label}</a>`)}</p>` : '';
  return layout(title, html`<h1>${title}</h1><p>${message}</p>${onward}`);
}

/** The wait a refusal asks for, as a person reads it. */
function waitWords(seconds: number): string {
  if (seconds < 90) return 'a minute';
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
}

/** The pages' one 429: a page saying how long to wait (Retry-After from the refusal). */
export function tooManyPage(refused: TooManyRequestsError): AppError {
  const message = `There have been too many attempts from here or for this account. Please wait ${waitWords(refused.retryAfterSeconds)} and try again.`;
  return tooManyRequestsAs(errorPage('Too many attempts', message), { 'Content-Type': HTML_CONTENT_TYPE }, refused);
}

/** The presenter of the pages (common/refusals.ts). */
export const pageRefusals = presenter({
  tooMany: tooManyPage,
  refusal: (refused) => pageError(STATUS_OF[refused.kind], refused.kind === 'invalid' ? 'Invalid request' : 'Not done', refused.message),
});

/** An error answered with an HTML page, for the browser routes. */
export function pageError(
  status: number,
  title: string,
  message: string,
  options?: ErrorOptions & { links?: readonly PageLink[] },
): AppError {
  const { links, ...rest } = options ?? {};
  // The log gets the page's words, not its HTML.
  return new AppError(
    status,
    errorPage(title, message, links),
    { 'Content-Type': HTML_CONTENT_TYPE },
    { ...rest, message: `${title}: ${message}` },
  );
}
