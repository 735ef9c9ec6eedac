// Account mail (docs/operations.md, Mail): nodemailer over SMTP_URL. Outside production without
// SMTP_URL, messages go to a development outbox kept in memory and read at /dev/mail (from this
// machine only), and a log line says where, never the links (they hold tokens), so every mail flow
// works on a fresh clone. In production without SMTP_URL
// no mail is sent and the flows that need it say so. Sending never holds up a page: messages wait in
// a bounded queue, are tried a bounded number of times, and a failure is logged without the message.
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { createWorkQueue } from '../common/work-queue';
import type { Config } from '../config';

export interface Mail {
  to: string;
  subject: string;
  /** Plain text; links in it are absolute URLs under PUBLIC_URL. */
  text: string;
}

export interface OutboxMessage extends Mail {
  id: number;
  at: Date;
}

export const MAIL_LIMITS = {
  attempts: 3,
  backoffMs: [2000, 10_000],
  /** Connecting, greeting and each SMTP command. */
  timeoutMs: 10_000,
  concurrent: 2,
  queued: 1000,
  /** Messages the development outbox keeps (the oldest go first). */
  outboxSize: 50,
} as const;

export interface Mailer {
  /** False in production without SMTP_URL: nothing can be sent. */
  readonly available: boolean;
  /** Queues the message and returns at once. */
  send(mail: Mail): void;
  /** The development outbox, newest first; null when mail goes over SMTP (or nowhere). */
  outbox(): OutboxMessage[] | null;
  /** Messages waiting or being sent. */
  readonly pending: number;
  /** Waits (at most `timeoutMs`) for the queue to empty: graceful shutdown. */
  drained(timeoutMs: number): Promise<void>;
}

/** Only the domain of an address goes to the logs. */
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

export function createMailer(config: Config, logger: Logger): Mailer {
  const { smtpUrl, from } = config.mail;
  if (!smtpUrl) return config.isProduction ? unavailableMailer() : developmentOutbox(config, logger);
  // nodemailer is loaded with the first message: a server that sends none never holds it in memory.
  let transport: Promise<Transporter> | undefined;
  const transportNow = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: MAIL_LIMITS.timeoutMs,
        greetingTimeout: MAIL_LIMITS.timeoutMs,
        socketTimeout: MAIL_LIMITS.timeoutMs,
        // Message bodies hold sign-in links: nodemailer logs nothing of its own.
        logger: false,
      }),
    ));
  const queue = createWorkQueue<Mail>(
    MAIL_LIMITS,
    async (mail) => {
      await (await transportNow()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    {
      retried: (mail, attempt, err) =>
        logger.info({ to: domainOf(mail.to), subject: mail.subject, attempt, reason: reasonOf(err) }, 'mail retried'),
      failed: (mail, err) => logger.warn({ to: domainOf(mail.to), subject: mail.subject, reason: reasonOf(err) }, 'mail not sent'),
    },
  );
  return {
    available: true,
    send(mail) {
      if (!queue.add(mail)) logger.warn({ to: domainOf(mail.to), subject: mail.subject }, 'mail dropped: too many waiting');
    },
    outbox: () => null,
    get pending() {
      return queue.pending;
    },
    drained: (timeoutMs) => queue.drained(timeoutMs),
  };
}

/** An SMTP error's code and response code, never the message text (which may quote the message). */
function reasonOf(err: unknown): string {
  const { code, responseCode } = (err ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [code, responseCode].filter((part) => typeof part === 'string' || typeof part === 'number');
  return parts.map(String).join(' ') || 'failed';
}

function developmentOutbox(config: Config, logger: Logger): Mailer {
  const kept: OutboxMessage[] = [];
  let nextId = 1;
  return {
    available: true,
    send(mail) {
      kept.unshift({ ...mail, id: nextId++, at: new Date() });
      kept.length = Math.min(kept.length, MAIL_LIMITS.outboxSize);
      // Development only (production never keeps an outbox). No log line carries a link's token:
      // the links are at /dev/mail, which answers this machine only.
      logger.info({ to: mail.to, subject: mail.subject, outbox: `${config.publicUrl}/dev/mail` }, 'mail kept in the development outbox');
    },
    outbox: () => kept.map((message) => ({ ...message })),
    pending: 0,
    drained: () => Promise.resolve(),
  };
}

function unavailableMailer(): Mailer {
  return {
    available: false,
    send: () => undefined,
    outbox: () => null,
    pending: 0,
    drained: () => Promise.resolve(),
  };
}
