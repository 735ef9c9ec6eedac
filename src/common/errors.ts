// One error type: services throw an AppError (or a subclass) carrying the status and the wire body
// of their feature; the error handler writes it. Anything else is a 500 with a generic message.

export class AppError extends Error {
  constructor(
    readonly status: number,
    /** undefined means an empty body; a string is sent as it is (set Content-Type in headers). */
    readonly body?: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
    /** `message`: what the log says of it, when the body is no line for a log (an HTML page). */
    options?: ErrorOptions & { message?: string },
  ) {
    super(options?.message ?? (body === undefined ? `HTTP ${status}` : typeof body === 'string' ? body : JSON.stringify(body)), options);
    this.name = new.target.name;
  }
}

/** 400 `{ error }`: a rule of the resource was broken. */
export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, { error: message });
  }
}

/** 400 `{ errors: [...] }`: validation or authentication failures, as seed 000 shapes them. */
export class InvalidRequestError extends AppError {
  constructor(readonly errors: readonly unknown[]) {
    super(400, { errors });
  }
}

/** 404 `{ error }`. */
export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, { error: message });
  }
}

/** 401 with an empty body: no usable credentials were presented. */
export class UnauthorizedError extends AppError {
  constructor(headers: Record<string, string> = {}) {
    super(401, undefined, headers);
  }
}

/** 403 with an empty body: credentials were presented but are not valid. */
export class ForbiddenError extends AppError {
  constructor() {
    super(403);
  }
}

/** 503: the database cannot be reached right now. */
export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service temporarily unavailable') {
    super(503, { error: message }, { 'Retry-After': '1' });
  }
}
