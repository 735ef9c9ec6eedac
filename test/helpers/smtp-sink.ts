// A real SMTP server on loopback (smtp-server) that keeps what it receives, parsed by mailparser:
// the mail tests read what arrived, never a mocked transport. It can refuse the next messages, to
// test retries.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The first link in the text. */
  link: string | undefined;
  headers: Map<string, unknown>;
}

export interface SmtpSink {
  /** For SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Refuses the next `count` messages with a temporary failure (451). */
  refuseNext(count: number): void;
  /** The messages to this address, waiting (bounded) until there are at least `count`. */
  mailTo(address: string, count?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      if (refusals > 0) {
        refusals--;
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('try again later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (parsed) => {
          const text = parsed.text ?? '';
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            subject: parsed.subject ?? '',
            text,
            link: text.match(/https?:\/\/\S+/)?.[0],
            headers: parsed.headers,
          });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server.server as unknown as { address(): AddressInfo }).address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext(count) {
      refusals = count;
    },
    async mailTo(address, count = 1) {
      const to = () => received.filter((mail) => mail.to.includes(address));
      for (let waited = 0; to().length < count && waited < 15_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      return to();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
