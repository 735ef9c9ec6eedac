// The parser for HTML form posts (sign-in, consent) and OAuth's form-encoded endpoints.
import express from 'express';

export const formBody = express.urlencoded({ extended: false, limit: '100kb' });
