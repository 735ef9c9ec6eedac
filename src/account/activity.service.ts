// Recent security activity of each account (docs/accounts.md): sign-ins, failed attempts, password
// changes and resets, verification; kept 90 days. Recording never fails the request it describes.
import type { Logger } from 'pino';
import * as activityDao from './activity.dao';
import type { ActivityDocument, ActivityKind } from './activity.model';
import { ACCOUNT_RULES } from './account.rules';

export { ACTIVITY_KINDS, type ActivityKind } from './activity.model';

const cutoff = (now: Date) => new Date(now.getTime() - ACCOUNT_RULES.activityRetentionMs);

/** Where an event came from: the client address, and how or from what browser. */
export interface EventOrigin {
  address: string;
  detail?: string;
  /** Someone acting on the person's account (an operator's client), and the application concerned. */
  actor?: string;
  clientId?: string;
}

/** What the admin API's events list is filtered by; `after` is the cursor of the page before. */
export interface EventFilter {
  userId?: string;
  clientId?: string;
  kind?: ActivityKind;
  since?: Date;
  until?: Date;
  after?: { at: Date; id: string };
}

/** The activity log of the running app: records (a database failure is logged, never thrown) and lists. */
export function createActivityLog(logger: Pick<Logger, 'warn'>) {
  return {
    /** `userId` null: an operator's change that concerns no one person (an application, the keys). */
    async record(userId: string | null, kind: ActivityKind, where: EventOrigin): Promise<void> {
      try {
        const now = new Date();
        await activityDao.insert(
          {
            ...(userId !== null ? { userId } : {}),
            kind,
            at: now,
            address: where.address,
            detail: where.detail?.slice(0, 200),
            ...(where.actor ? { actor: where.actor } : {}),
            ...(where.clientId ? { clientId: where.clientId } : {}),
          },
          new Date(now.getTime() + ACCOUNT_RULES.activityRetentionMs),
        );
      } catch (err) {
        logger.warn({ err, kind }, 'security activity not recorded');
      }
    },

    /** Events across every account (the admin API), newest first, `limit` of them after the cursor. */
    search(filter: EventFilter, limit: number): Promise<ActivityDocument[]> {
      return activityDao.search({ ...filter, since: filter.since ?? cutoff(new Date()) }, limit);
    },

    /** One page of the account's events of the last 90 days, newest first, and whether more follow. */
    async list(userId: string, page: number): Promise<{ events: ActivityDocument[]; more: boolean }> {
      const size = ACCOUNT_RULES.pageSize;
      const found = await activityDao.listSince(userId, cutoff(new Date()), page * size, size + 1);
      return { events: found.slice(0, size), more: found.length > size };
    },
  };
}

export type ActivityLog = ReturnType<typeof createActivityLog>;
