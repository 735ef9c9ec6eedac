import { body } from 'express-validator';
import { email, MAX_PASSWORD_LENGTH } from '../common/validation';

export const login = [
  email('required'),
  body('password')
    .exists()
    .withMessage('Must include password')
    .bail()
    .isString()
    .withMessage('Password must be a string')
    .bail()
    .isLength({ max: MAX_PASSWORD_LENGTH })
    .withMessage(`Password must be at most ${MAX_PASSWORD_LENGTH} characters`),
];
