// A fetch whose answers are cut off past a size: what a service this server calls (an upstream OpenID
// provider's discovery, JWKS, token and userinfo answers) cannot make it buffer without end. The body
// is read as it arrives and the connection dropped at the first byte over; a declared Content-Length
// over the limit is refused before any of it is read.

/** An answer larger than the fetch takes. */
export class AnswerTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

export function limitedFetch(inner: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const answer = await inner(input, init);
    const declared = Number(answer.headers.get('content-length') ?? 0);
    if (declared > maxBytes) {
      await answer.body?.cancel();
      throw new AnswerTooLargeError(maxBytes);
    }
    if (!answer.body) return answer;
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    let read = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        read += value.byteLength;
        if (read > maxBytes) {
          await reader.cancel();
          return controller.error(new AnswerTooLargeError(maxBytes));
        }
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    const limited = new Response(body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    // A Response made here has no URL of its own; the library may read the answer's.
    Object.defineProperty(limited, 'url', { value: answer.url });
    return limited;
  };
}
