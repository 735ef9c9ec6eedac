// Graceful refresh rotation (OAUTH_REFRESH_GRACE_SECONDS): two tabs refreshing at once, or a retry
// after a lost response, keep the session; a replay after the grace period, or by another client,
// does not get tokens. Without the setting, rotation is strictly single-use (see token.test.ts).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, passwordGrant, registerClient } from '../helpers/oauth';

useTestDatabase();

const clock = movableClock();
const app = testApp({ OAUTH_REFRESH_GRACE_SECONDS: '1' }, { clock });
const refresh = (client: { client_id: string; client_secret: string }, refreshToken: string) =>
  request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'refresh_token', ...clientSecretPost(client), refresh_token: refreshToken });
const me = (token: string) => request(app).get('/api/user').set('Authorization', `Bearer ${token}`);

describe('graceful refresh rotation', () => {
  it('answers concurrent refreshes with the same token with valid pairs, keeping the family', async () => {
    const { client, tokens } = await passwordGrant(app);
    const answers = await Promise.all([refresh(client, tokens.refresh_token), refresh(client, tokens.refresh_token)]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    for (const res of answers) {
      await me(res.body.access_token as string).expect(200);
      await refresh(client, res.body.refresh_token as string).expect(200);
    }
  });

  it('allows one replay within the grace period; the next is a replay like any other and revokes the family', async () => {
    const { client, tokens } = await passwordGrant(app);
    const renewed = await refresh(client, tokens.refresh_token).expect(200);
    const retried = await refresh(client, tokens.refresh_token).expect(200);
    const again = await refresh(client, tokens.refresh_token).expect(400);
    expect(again.body.error).toBe('invalid_grant');
    for (const pair of [renewed.body, retried.body] as { access_token: string }[]) await me(pair.access_token).expect(401);
  });

  it('gives at most two pairs for one token when 20 refreshes arrive at once', async () => {
    const { client, tokens } = await passwordGrant(app);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(client, tokens.refresh_token)));
    expect(answers.filter((res) => res.status === 200).length).toBeLessThanOrEqual(2);
    expect(answers.every((res) => res.status === 200 || res.body.error === 'invalid_grant')).toBe(true);
  });

  it('revokes the family when the token comes back after the grace period', async () => {
    const { client, tokens } = await passwordGrant(app);
    const renewed = await refresh(client, tokens.refresh_token).expect(200);
    clock.move(1200);
    const replay = await refresh(client, tokens.refresh_token).expect(400);
    expect(replay.body.error).toBe('invalid_grant');
    await me(renewed.body.access_token as string).expect(401);
    await refresh(client, renewed.body.refresh_token as string).expect(400);
  });

  it('gives nothing to another client within the grace period', async () => {
    const { client, tokens } = await passwordGrant(app);
    await refresh(client, tokens.refresh_token).expect(200);
    const other = await registerClient({ grants: ['password', 'refresh_token'] });
    const res = await refresh(other, tokens.refresh_token).expect(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});
