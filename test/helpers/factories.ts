import { randomBytes } from 'node:crypto';
import * as usersService from '../../src/users/users.service';
import type { CreateUserDto } from '../../src/users/users.types';

export function buildUserInput(overrides: Partial<CreateUserDto> = {}): CreateUserDto {
  const tag = randomBytes(5).toString('hex');
  return { email: `user-${tag}@example.com`, password: `pw-${tag}`, firstName: 'Test', lastName: `User ${tag}`, ...overrides };
}

/** Creates a user through the service (real hashing) and returns its id with the plain credentials. */
export async function createUser(overrides: Partial<CreateUserDto> = {}): Promise<CreateUserDto & { id: string }> {
  const input = buildUserInput(overrides);
  const id = await usersService.create(input);
  return { ...input, id };
}
