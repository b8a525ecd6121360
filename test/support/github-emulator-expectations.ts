/**
 * What a test told the GitHub emulator to expect: requests that must come (`expect`),
 * may come (`allow`) or must fail (`fail`, with a fault). Requests nobody expected,
 * requests or answers GitHub's REST description refuses, and expectations left unused fail
 * the test through the two assertions.
 */
import { type RouteResult, errorResult } from './github-emulator-routes.js';

/** A response forced onto the next matching requests, before auth or routing. */
export type Fault =
  | 'bad-gateway'
  | 'rate-limit'
  | 'secondary-rate-limit'
  | { status: number; message?: string; headers?: Record<string, string> };

interface Expectation {
  method: string;
  matcher: RegExp;
  label: string;
  remaining: number;
  fault?: Fault;
}

/**
 * Paths with `:name` (captured, in order) or `*` for one segment and `**` for the rest;
 * or a RegExp.
 */
export function pathMatcher(pattern: string | RegExp): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const parts = pattern.split('/').map((segment) => {
    if (segment === '**') return '.*';
    if (segment.startsWith(':')) return '([^/]+)';
    if (segment === '*') return '[^/]+';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('/')}$`);
}

export function faultResult(fault: Fault): RouteResult {
  if (fault === 'bad-gateway') return errorResult(502, 'Server Error');
  if (fault === 'rate-limit') {
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    const headers = {
      'retry-after': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': reset,
    };
    return { ...errorResult(403, 'API rate limit exceeded for installation.'), headers };
  }
  if (fault === 'secondary-rate-limit') {
    const message =
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';
    return { ...errorResult(403, message), headers: { 'retry-after': '1' } };
  }
  const result = errorResult(fault.status, fault.message ?? 'Injected fault');
  return fault.headers === undefined ? result : { ...result, headers: fault.headers };
}

export interface Expectations {
  add(method: string, pattern: string | RegExp, times: number, fault?: Fault): void;
  /**
   * Counts a request against the first expectation it fits (faults first); returns
   * the fault to answer with, if any. A request nothing fits is noted as unexpected.
   */
  claim(method: string, path: string): { fault?: Fault };
  /** Requests a test sends on purpose for GitHub to refuse (422); each must come. */
  addRefusal(method: string, pattern: string | RegExp, times: number): void;
  /**
   * A request GitHub's description refuses, or an answer it does not describe; a refused
   * request (`refused`) a test announced with addRefusal is no breach.
   */
  breach(what: string, refused?: { method: string; path: string }): void;
  assertNoUnexpected(): void;
  assertAllUsed(): void;
}

export function createExpectations(): Expectations {
  const expectations: Expectation[] = [];
  const unexpected: string[] = [];
  const breaches: string[] = [];
  const refusals: Expectation[] = [];
  return {
    addRefusal(method, pattern, times) {
      const upper = method.toUpperCase();
      const label = `${upper} ${String(pattern)} refused by GitHub's description`;
      refusals.push({ method: upper, matcher: pathMatcher(pattern), label, remaining: times });
    },
    add(method, pattern, times, fault) {
      const upper = method.toUpperCase();
      expectations.push({
        method: upper,
        matcher: pathMatcher(pattern),
        label: `${upper} ${String(pattern)}`,
        remaining: times,
        ...(fault === undefined ? {} : { fault }),
      });
    },
    claim(method, path) {
      const fits = (e: Expectation) =>
        e.remaining > 0 && (e.method === '*' || e.method === method) && e.matcher.test(path);
      const found =
        expectations.find((e) => e.fault !== undefined && fits(e)) ??
        expectations.find((e) => e.fault === undefined && fits(e));
      if (!found) {
        unexpected.push(`${method} ${path}`);
        return {};
      }
      found.remaining -= 1;
      return found.fault === undefined ? {} : { fault: found.fault };
    },
    breach(what, refused) {
      const announced = refused
        ? refusals.find(
            (r) => r.remaining > 0 && r.method === refused.method && r.matcher.test(refused.path),
          )
        : undefined;
      if (announced) announced.remaining -= 1;
      else breaches.push(what);
    },
    assertNoUnexpected() {
      const parts = [
        ...(unexpected.length > 0
          ? [`unexpected GitHub requests:\n  ${unexpected.join('\n  ')}`]
          : []),
        ...(breaches.length > 0
          ? [`not as GitHub's REST description says:\n  ${breaches.join('\n  ')}`]
          : []),
      ];
      if (parts.length > 0) throw new Error(parts.join('\n'));
    },
    assertAllUsed() {
      const left = [...expectations, ...refusals].filter(
        (e) => e.remaining > 0 && Number.isFinite(e.remaining),
      );
      if (left.length === 0) return;
      const lines = left.map((e) => `${e.label} (${e.remaining} more)`);
      throw new Error(`GitHub expectations left unused:\n  ${lines.join('\n  ')}`);
    },
  };
}
