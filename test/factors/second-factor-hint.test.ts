// The account's second-factor hint (users.model.ts `secondFactor`): a sign-in that reads "none" skips
// the look at the factors, so the hint must never say "none" while a factor exists: a record older
// than the hint is looked at, and factors added and removed at once leave it true while any is left.
import { PasskeyModel } from '../../src/factors/passkeys.model';
import * as passkeysDao from '../../src/factors/passkeys.dao';
import { changeFactors, hasSecondFactor } from '../../src/factors/factors.service';
import * as totpDao from '../../src/factors/totp.dao';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, passwordStep } from '../helpers/factors';
import { signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const hintOf = async (userId: string) => (await UserModel.findById(userId, { secondFactor: 1 }).lean())?.secondFactor;
const kindsOf = async (userId: string) => (await UserModel.findById(userId, { factorKinds: 1 }).lean())?.factorKinds;

const passkey = (userId: string, n: number) => ({
  _id: `cred-${userId}-${n}`,
  userId,
  publicKey: 'AQID',
  counter: 0,
  deviceType: 'singleDevice' as const,
  name: `Key ${n}`,
  createdAt: new Date(),
});

it('is false for a new account, true once the app is on, and the password then leads to the second step', async () => {
  const user = await createUser();
  expect(await hintOf(user.id)).toBe(false);
  const { agent } = await signedInAgent(app, user);
  await enrolTotp(agent);
  expect(await hintOf(user.id)).toBe(true);
  expect(await kindsOf(user.id)).toEqual({ totp: true, passkeys: false });
  expect((await passwordStep(app, user)).res.headers.location).toBe('/login/verify');
});

it('asks an account whose record predates the hint for its second factor', async () => {
  const user = await createUser();
  const { agent } = await signedInAgent(app, user);
  await enrolTotp(agent);
  await UserModel.updateOne({ _id: user.id }, { $unset: { secondFactor: 1 } });
  expect((await passwordStep(app, user)).res.headers.location).toBe('/login/verify');
});

it('never says "none" while a factor exists when factors are added and removed at once', async () => {
  const user = await createUser();
  const { agent } = await signedInAgent(app, user);
  await enrolTotp(agent);
  // The app turned off while ten passkeys are added and five of them removed again, all at once.
  await Promise.all([
    changeFactors(user.id, () => totpDao.remove(user.id)),
    ...Array.from({ length: 10 }, (_, n) => changeFactors(user.id, () => passkeysDao.insert(passkey(user.id, n)))),
    ...Array.from({ length: 5 }, (_, n) => changeFactors(user.id, () => passkeysDao.remove(user.id, `cred-${user.id}-${n}`))),
  ]);
  expect(await hintOf(user.id)).toBe(await hasSecondFactor(user.id));
  expect(await kindsOf(user.id)).toEqual({ totp: false, passkeys: true });
  // The last passkeys removed at once: "none" only now.
  await Promise.all(
    (await PasskeyModel.find({ userId: user.id }).lean()).map((key) => changeFactors(user.id, () => passkeysDao.remove(user.id, key._id))),
  );
  expect(await hasSecondFactor(user.id)).toBe(false);
  expect(await hintOf(user.id)).toBe(false);
  expect(await kindsOf(user.id)).toBeUndefined();
  expect((await passwordStep(app, user)).res.headers.location).toBe('/home');
});
