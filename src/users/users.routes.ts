// User records (seed 000): create, read, list, replace, partially update and delete.
// No credentials are required on these routes, as the seed says.
import { Router } from 'express';
import { validate } from '../common/validation';
import * as usersController from './users.controller';
import { MAX_PAGE_SIZE } from './users.service';
import * as usersValidation from './users.validation';

export function createUsersRouter(): Router {
  const router = Router();
  router.get('/', validate(usersValidation.listUsers(MAX_PAGE_SIZE)), usersController.list);
  router.post('/', validate(usersValidation.createUser), usersController.create);
  router
    .route('/:userId')
    .all(usersController.loadUser)
    .get(usersController.get)
    .put(validate(usersValidation.putUser), usersController.update)
    .patch(validate(usersValidation.patchUser), usersController.update)
    .delete(usersController.remove);
  return router;
}
