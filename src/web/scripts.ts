// Pages that run a script of this server (the passkey buttons): the pages' usual policy
// (common/security.ts) with scripts and fetches from this origin added. Every other page runs none.
import type { Response } from 'express';

/** Lets this page run the server's own scripts: `script-src 'self'` and `connect-src 'self'`. */
export function allowOwnScripts(res: Response): Response {
  (res.locals as { ownScripts?: boolean }).ownScripts = true;
  return res;
}

/** The source list of `script-src` and `connect-src` in the page's policy (common/security.ts). */
export const ownScriptsSource = (res: Response): string =>
  (res.locals as { ownScripts?: boolean }).ownScripts === true ? "'self'" : "'none'";
