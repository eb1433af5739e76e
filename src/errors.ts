/** Domain errors: thrown anywhere, turned into a status and body in one place (src/api/errors.ts). */
export type ErrorDetail = { path: string; message: string };

export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export class InvalidInput extends DomainError {
  constructor(message: string, errors: ErrorDetail[] = [], code = 'INVALID_INPUT') {
    super(400, code, message, errors);
  }
}
export class Unauthorized extends DomainError {
  constructor(message = 'Unauthorized', code = 'UNAUTHORIZED') {
    super(401, code, message);
  }
}
export class Forbidden extends DomainError {
  constructor(message: string, code = 'FORBIDDEN') {
    super(403, code, message);
  }
}
export class NotFound extends DomainError {
  constructor(message: string, code = 'NOT_FOUND') {
    super(404, code, message);
  }
}
export class Conflict extends DomainError {
  constructor(message: string, code = 'CONFLICT') {
    super(409, code, message);
  }
}
export class Unprocessable extends DomainError {
  constructor(message: string, code = 'UNPROCESSABLE') {
    super(422, code, message);
  }
}
export class TooManyRequests extends DomainError {
  constructor(message: string, code = 'RATE_LIMITED') {
    super(429, code, message);
  }
}
export class Unavailable extends DomainError {
  constructor(message: string, code = 'UNAVAILABLE') {
    super(503, code, message);
  }
}
