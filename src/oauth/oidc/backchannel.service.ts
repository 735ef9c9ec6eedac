// OpenID Connect Back-Channel Logout 1.0: when a browser session ends (sign-out, RP-initiated logout)
// or every session of a person does (password change, deletion), each client that got a grant in it
// and registered a backchannel_logout_uri receives a logout token by POST. Delivery runs after the
// person's answer has gone, through the guarded fetcher (3 s per attempt), three attempts at most,
// with a bounded number at once: an unreachable client delays nobody.
import type { Logger } from 'pino';
import { guardedFetch } from '../../common/guarded-fetch';
import type { Config } from '../../config';
import { throttled } from '../../db/sweeper';
import { createWorkQueue } from '../../common/work-queue';
import * as clientsService from '../clients/clients.service';
import * as backchannelDao from './backchannel.dao';
import type { SessionClientDocument } from './backchannel.model';
import type { IdTokens } from './id-tokens.service';

export const BACKCHANNEL_LIMITS = {
  attempts: 3,
  /** Before the second and third attempts. */
  backoffMs: [1000, 4000],
  timeoutMs: 3000,
  /** Deliveries under way at once; more wait, and past `queued` are dropped (and logged). */
  concurrent: 8,
  queued: 1000,
} as const;

/** A remembered session can be open for 30 days at most (remember me), so older records are swept. */
const RECORD_LIFETIME_MS = 31 * 24 * 3600 * 1000;
const reasonOf = (err: unknown) => (err instanceof Error ? err.message : 'failed');

const sweepOld = throttled(3600_000, (now) => backchannelDao.deleteOlderThan(new Date(now.getTime() - RECORD_LIFETIME_MS)));

export function createBackchannelLogout(config: Config, idTokens: Pick<IdTokens, 'signLogoutToken'>, logger: Logger) {
  const queue = createWorkQueue<SessionClientDocument>(
    BACKCHANNEL_LIMITS,
    async (record) => {
      const client = await clientsService.find(record.clientId);
      const uri = client?.metadata?.backchannel_logout_uri;
      if (!client || !uri) return;
      // A fresh token each attempt (a new jti): the client may have seen a failed one.
      const token = await idTokens.signLogoutToken({
        userId: record.userId,
        sid: record.sid,
        clientId: client._id,
        algorithm: client.metadata?.id_token_signed_response_alg,
      });
      await guardedFetch(uri, {
        allowPrivate: !config.isProduction,
        maxBytes: 16 * 1024,
        timeoutMs: BACKCHANNEL_LIMITS.timeoutMs,
        form: { logout_token: token },
      });
    },
    {
      retried: (record, attempt, err) =>
        logger.info({ clientId: record.clientId, attempt, reason: reasonOf(err) }, 'back-channel logout retried'),
      failed: (record, err) =>
        logger.info(
          { clientId: record.clientId, attempt: BACKCHANNEL_LIMITS.attempts, reason: reasonOf(err) },
          'back-channel logout failed',
        ),
    },
  );

  function enqueue(records: SessionClientDocument[]): void {
    for (const record of records) {
      if (!queue.add(record)) logger.warn({ clientId: record.clientId }, 'back-channel logout dropped: too many waiting');
    }
  }

  return {
    /** The client got a grant in this session: it will hear when the session ends. */
    async granted(sid: string, userId: string, client: { _id: string; metadata?: { backchannel_logout_uri?: string } }): Promise<void> {
      if (!client.metadata?.backchannel_logout_uri) return;
      await backchannelDao.remember(sid, userId, client._id);
      sweepOld();
    },

    /** One browser session ended: its clients are told, after this returns. */
    async sessionEnded(ended: { sid: string }): Promise<void> {
      enqueue(await backchannelDao.take({ sid: ended.sid }));
    },

    /** Every session of the person ended (password change, deletion). */
    async userEnded(userId: string): Promise<void> {
      enqueue(await backchannelDao.take({ userId }));
    },

    /** Deliveries not finished yet, for tests and shutdown. */
    get pending(): number {
      return queue.pending;
    },
  };
}

export type BackchannelLogout = ReturnType<typeof createBackchannelLogout>;
