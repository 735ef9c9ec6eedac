// OpenID Connect Back-Channel Logout 1.0: when a browser session ends (sign-out, RP-initiated logout)
// or every session of a person does (password change, deletion), each client that got a grant in it
// and registered a backchannel_logout_uri receives a logout token by POST. Delivery runs after the
// person's answer has gone, through the guarded fetcher (3 s per attempt), three attempts at most,
// with a bounded number at once: an unreachable client delays nobody. Deliveries take turns by the
// clients' owners, each owner holding at most 2 of the 8 slots and 100 waiting, one delivery per
// client at a time, and a host that keeps not answering one owner's clients is paused for that
// owner: one account's 50 silent clients cost others nothing and their host a handful of POSTs
// (docs/decisions.md).
import type { Logger } from 'pino';
import { guardedFetch, GuardedFetchError } from '../../common/guarded-fetch';
import type { Config } from '../../config';
import { createWorkQueue } from '../../common/work-queue';
import * as clientsService from '../clients/clients.service';
import * as backchannelDao from './backchannel.dao';
import type { IdTokens } from './id-tokens.service';

export const BACKCHANNEL_LIMITS = {
  attempts: 3,
  /** Before the second and third attempts. */
  backoffMs: [1000, 4000],
  timeoutMs: 3000,
  /** Deliveries under way at once; more wait, and past `queued` are dropped (and logged). */
  concurrent: 8,
  queued: 1000,
  /** The clients of one owner: under way at once, and waiting. */
  perGroup: { concurrent: 2, queued: 100 },
  /** A host that left this many of one owner's deliveries in a row unanswered is paused for that owner, `pauseMs`. */
  pauseAfterSilences: 3,
  pauseMs: 10 * 60_000,
  /** Owner and host pairs remembered (the oldest are forgotten first). */
  hostsRemembered: 10_000,
} as const;

/** A delivery to a host that is paused for its owner: not attempted, not retried. */
class HostPaused extends Error {}

/** What one delivery needs: the record, where it goes, and whose client it is. */
interface Delivery {
  record: backchannelDao.SessionClient;
  uri: string;
  ownerId: string;
}

/**
 * Unanswered deliveries in a row by owner and host, and until when a host is paused for an owner. By
 * owner: another account's client on the same host (a shared platform) is not held up by this one's.
 */
function createHostPauses(now: () => number) {
  const silences = new Map<string, { count: number; pausedUntil: number }>();
  const keyOf = ({ ownerId, uri }: Delivery) => `${ownerId} ${new URL(uri).hostname}`;
  return {
    paused: (delivery: Delivery) => (silences.get(keyOf(delivery))?.pausedUntil ?? 0) > now(),
    answered: (delivery: Delivery) => void silences.delete(keyOf(delivery)),
    unanswered(delivery: Delivery) {
      const key = keyOf(delivery);
      const known = silences.get(key) ?? { count: 0, pausedUntil: 0 };
      const count = known.count + 1;
      // Attempts already under way when the pause began end unanswered too: they keep the pause as it is.
      const pausedUntil =
        count >= BACKCHANNEL_LIMITS.pauseAfterSilences
          ? Math.max(known.pausedUntil, now() + BACKCHANNEL_LIMITS.pauseMs)
          : known.pausedUntil;
      silences.delete(key);
      silences.set(key, { count, pausedUntil });
      if (silences.size > BACKCHANNEL_LIMITS.hostsRemembered) silences.delete(silences.keys().next().value!);
    },
  };
}

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : 'failed');

/** Migration: the records kept one per session and client before become one per session (backchannel.dao). */
export const regroupRecords = (): Promise<number> => backchannelDao.regroupPairs();

export function createBackchannelLogout(
  config: Config,
  idTokens: Pick<IdTokens, 'signLogoutToken'>,
  logger: Logger,
  clients: clientsService.ClientRegistry,
  now: () => number = Date.now,
) {
  const pauses = createHostPauses(now);
  const queue = createWorkQueue<Delivery>(
    BACKCHANNEL_LIMITS,
    async (delivery) => {
      const { record } = delivery;
      if (pauses.paused(delivery)) throw new HostPaused("its host left this owner's deliveries unanswered and is paused");
      const client = await clients.find(record.clientId);
      // A client deleted, or its address removed, since the session ended hears nothing; a changed
      // address gets it at the new one.
      const uri = client?.metadata?.backchannel_logout_uri;
      if (!client || !uri) return;
      // A fresh token each attempt (a new jti): the client may have seen a failed one.
      const token = await idTokens.signLogoutToken({
        userId: record.userId,
        sid: record.sid,
        clientId: record.clientId,
        algorithm: client.metadata?.id_token_signed_response_alg,
      });
      try {
        await guardedFetch(uri, {
          allowPrivate: !config.isProduction,
          maxBytes: 16 * 1024,
          timeoutMs: BACKCHANNEL_LIMITS.timeoutMs,
          form: { logout_token: token },
        });
      } catch (err) {
        if (err instanceof GuardedFetchError && err.unanswered) pauses.unanswered(delivery);
        else pauses.answered(delivery);
        throw err;
      }
      pauses.answered(delivery);
    },
    {
      retried: ({ record }, attempt, err) =>
        logger.info({ clientId: record.clientId, attempt, reason: reasonOf(err) }, 'back-channel logout retried'),
      failed: ({ record }, err) => logger.info({ clientId: record.clientId, reason: reasonOf(err) }, 'back-channel logout failed'),
    },
    {
      groupOf: (delivery) => delivery.ownerId,
      keyOf: (delivery) => delivery.record.clientId,
      retryable: (err) => !(err instanceof HostPaused),
    },
  );

  async function enqueue(records: backchannelDao.SessionClient[]): Promise<void> {
    const found = await Promise.all(records.map((record) => clients.find(record.clientId)));
    records.forEach((record, i) => {
      const uri = found[i]?.metadata?.backchannel_logout_uri;
      if (!uri) return;
      const delivery = { record, uri, ownerId: found[i]?.ownerId ?? record.clientId };
      if (!queue.add(delivery)) logger.warn({ clientId: record.clientId }, 'back-channel logout dropped: too many waiting');
    });
  }

  return {
    /** The client got a grant in this session: it will hear when the session ends. */
    async granted(sid: string, userId: string, client: { _id: string; metadata?: { backchannel_logout_uri?: string } }): Promise<void> {
      if (!client.metadata?.backchannel_logout_uri) return;
      await backchannelDao.remember(sid, userId, client._id, new Date(now()));
    },

    /** One browser session ended: its clients are told, after this returns. */
    async sessionEnded(ended: { sid: string }): Promise<void> {
      await enqueue(await backchannelDao.takeSession(ended.sid));
    },

    /** Every session of the person ended (password change, deletion). */
    async userEnded(userId: string): Promise<void> {
      await enqueue(await backchannelDao.takePerson(userId));
    },

    /** Deliveries not finished yet, for tests and shutdown. */
    get pending(): number {
      return queue.pending;
    },
  };
}

export type BackchannelLogout = ReturnType<typeof createBackchannelLogout>;
