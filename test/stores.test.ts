// The stores of src/stores.ts, counted with the driver's command monitoring: each app's caches are its
// own (two apps in one process share none), a cache is emptied by its store's change signal, and its
// entries expire by the stores' clock, which the test moves.
import { createStores } from '../src/stores';
import { addScopes } from '../src/oauth/grants/grants.dao';
import { forgetUser } from '../src/oauth/grants/grants.service';
import { replaceProfile } from '../src/users/users.service';
import { movableClock } from './helpers/clock';
import { useMonitoredTestDatabase } from './helpers/db';
import { createUser } from './helpers/factories';
import { registerClient } from './helpers/oauth';

const { commands } = useMonitoredTestDatabase();

/** The commands `read` sends. */
async function sent(read: () => Promise<unknown>): Promise<string[]> {
  commands.length = 0;
  await read();
  return [...commands];
}

describe('a cache decorator on a store', () => {
  it('reads a person once per app: a second app in the same process reads for itself', async () => {
    const user = await createUser();
    const [first, second] = [createStores(), createStores()];
    expect(await sent(() => first.users.findCurrent(user.id))).toEqual(['find users']);
    expect(await sent(() => first.users.findCurrent(user.id))).toEqual([]);
    expect(await sent(() => second.users.findCurrent(user.id))).toEqual(['find users']);
  });

  it('reads again after a change is signalled, and once an entry is a minute old by the clock', async () => {
    const clock = movableClock();
    const { users } = createStores(clock);
    const user = await createUser();
    await users.findCurrent(user.id);
    await replaceProfile(user.id, { firstName: 'Changed', claims: {} });
    expect((await users.findCurrent(user.id))?.firstName).toBe('Changed');
    expect(await sent(() => users.findCurrent(user.id))).toEqual([]);
    clock.move(60_000);
    expect(await sent(() => users.findCurrent(user.id))).toEqual(['find users']);
  });

  it('keeps the record a sign-in read, for the requests that follow', async () => {
    const { users } = createStores();
    const user = await createUser();
    expect((await users.findForSignIn(user.email))?.user._id).toBe(user.id);
    expect(await sent(() => users.findCurrent(user.id))).toEqual([]);
  });

  it('knows a consent given through it, and forgets a forgotten one', async () => {
    const { consents } = createStores();
    const user = await createUser();
    const client = await registerClient();
    await consents.add(user.id, client.client_id, ['openid'], new Date());
    expect(await sent(() => consents.approved(user.id, client.client_id))).toEqual([]);
    await forgetUser(user.id);
    expect(await consents.approved(user.id, client.client_id)).toBeNull();
    // A consent stored by another app is read from the database.
    await addScopes(user.id, client.client_id, ['openid', 'email'], new Date());
    expect(await consents.approved(user.id, client.client_id)).toEqual(['openid', 'email']);
  });

  it('reads a client once per app, and not a made-up one into memory', async () => {
    const { clients } = createStores();
    const client = await registerClient();
    expect(await sent(() => clients.find(client.client_id))).toEqual(['find oauth_clients']);
    expect(await sent(() => clients.find(client.client_id))).toEqual([]);
    expect(await sent(() => clients.find('made-up'))).toEqual(['find oauth_clients']);
    expect(await sent(() => clients.find('made-up'))).toEqual(['find oauth_clients']);
  });
});
