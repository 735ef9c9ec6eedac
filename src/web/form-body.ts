// The parsers for form posts: HTML forms (sign-in, consent, device, sign-out), whose refusals are
// pages, and OAuth's form-encoded endpoints, whose refusals their own error step writes.
import express, { type RequestHandler } from 'express';
import { pageError } from './layout';

export const formBody = express.urlencoded({ extended: false, limit: '100kb' });

/** A form a person's browser posts: a body that cannot be read is answered with a page, as the form's other refusals are. */
export const pageFormBody: RequestHandler = (req, res, next) => {
  formBody(req, res, (err?: unknown) => {
    if (!err) return next();
    const status = (err as { status?: unknown }).status;
    const refused = typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
    next(
      refused === 413
        ? pageError(413, 'Form too large', 'The form sent more than 100 kB. Go back and try again.', { cause: err })
        : pageError(refused, 'Invalid form', 'The form could not be read. Go back and try again.', { cause: err }),
    );
  });
};
