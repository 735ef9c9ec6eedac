// Shared request logic for JSON weather providers: one GET with a timeout and an abort signal, and
// failures described by kind (timeout, refused, status, unreadable) rather than by axios' message,
// which could quote the URL and with it the API key.
import axios, { isAxiosError } from 'axios';
import { ProviderFailure } from './provider';

const MAX_RESPONSE_BYTES = 1024 * 1024;

export async function getJson(
  url: string,
  params: Record<string, string> | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  try {
    const response = await axios.get<string>(url, {
      params,
      timeout: timeoutMs,
      signal,
      responseType: 'text',
      // Parsed below, so unreadable data is told apart from a network failure.
      transformResponse: (data: string) => data,
      maxContentLength: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
    });
    try {
      return JSON.parse(response.data) as unknown;
    } catch {
      throw new ProviderFailure('answered with data that is not JSON');
    }
  } catch (err) {
    if (err instanceof ProviderFailure) throw err;
    throw new ProviderFailure(describe(err, timeoutMs));
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (!isAxiosError(err)) return 'request failed';
  if (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT') return `did not answer within ${timeoutMs} ms`;
  if (err.code === 'ERR_CANCELED') return 'request cancelled';
  if (err.response) return `answered with HTTP status ${err.response.status}`;
  if (err.code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(err.message)) return 'answered with more than 1 MiB';
  return `could not be reached (${err.code ?? 'network error'})`;
}

/** Follows a path of keys into parsed JSON and returns a finite number, or fails naming the field. */
export function numberAt(data: unknown, path: string[]): number {
  let value: unknown = data;
  for (const key of path) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ProviderFailure(`answered without a numeric ${path.join('.')}`);
  }
  return value;
}
