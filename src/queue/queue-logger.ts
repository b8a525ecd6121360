/**
 * Where the queue's lines go when the caller passes no logger; the caller passes its child
 * logger otherwise, so queue/ never builds one.
 */
import type { LogSink } from '../logger.js';

export const silentLogger: LogSink = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
