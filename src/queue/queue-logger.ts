/**
 * The slice of a pino logger the queue writes to; the caller passes its child logger, so
 * queue/ never builds one. Messages are constant strings, data goes in the object.
 */
export interface QueueLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: QueueLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
