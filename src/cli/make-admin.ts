// `npm run make-admin -- <email>`: adds the admin flag (8) to a user's permissionFlags, for the first
// admin of USERS_API_AUTH=jwt (later ones can be made by an admin through PATCH /users/:userId).
import * as usersService from '../users/users.service';
import { runEmailCommand } from './email-command';

const USAGE = `usage: npm run make-admin -- <email>

  adds the admin flag (${usersService.ADMIN_FLAG}) to the permissionFlags of the user with this email`;

runEmailCommand(USAGE, async (email) => {
  if (!(await usersService.grantAdmin(email))) throw new Error(`no user has the email ${email}`);
  return `${email} is now an admin (permissionFlags include ${usersService.ADMIN_FLAG})`;
});
