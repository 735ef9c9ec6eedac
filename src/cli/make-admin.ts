// `npm run make-admin -- <email>`: gives a user the admin role (the console, the admin API's people,
// and under USERS_API_AUTH=jwt every user record), for the first operator; later ones can be given
// it by an operator through the console or the admin API. Seed 000's permissionFlags play no part.
import * as usersService from '../users/users.service';
import { runEmailCommand } from './email-command';

const USAGE = `usage: npm run make-admin -- <email>

  gives the user with this email the ${usersService.ADMIN_ROLE} role`;

runEmailCommand(USAGE, async (email) => {
  if (!(await usersService.grantAdmin(email))) throw new Error(`no user has the email ${email}`);
  return `${email} now has the ${usersService.ADMIN_ROLE} role`;
});
