/**
 * Runs a differential property: fast-check generates cases from a seed, fluxlens and Flux
 * (an oracle) each answer every case, and they must agree: both fail (messages need not
 * match), or both succeed with the same result. On a disagreement fast-check shrinks the
 * case, and the error gives the seed, the smallest case, both answers and the command that
 * replays it.
 *
 * FLUXLENS_DIFFERENTIAL_RUNS  cases per property (default: the test's, sized for every CI
 *                             run; a nightly run sets tens of thousands)
 * FLUXLENS_DIFFERENTIAL_SEED  the seed (default: a new one per run, printed)
 * FLUXLENS_DIFFERENTIAL_PATH  with the seed, replays one failure's shrink path exactly
 */
import fc from 'fast-check';

/**
 * One side's answer: a result, serialised for comparison, or a failure. `unexpected`: a
 * failure of another kind than the code's own error type (a crash), which never agrees.
 */
export type Outcome =
  | { ok: true; value: string }
  | { ok: false; error: string; unexpected?: boolean };

export interface DifferentialSettings {
  runs: number;
  seed: number;
  path: string | undefined;
}

function envInteger(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name}=${text} is not an integer`);
  return value;
}

export function differentialSettings(defaultRuns: number): DifferentialSettings {
  const runs = envInteger('FLUXLENS_DIFFERENTIAL_RUNS') ?? defaultRuns;
  if (runs < 1) throw new Error(`FLUXLENS_DIFFERENTIAL_RUNS=${runs} must be at least 1`);
  const seed = envInteger('FLUXLENS_DIFFERENTIAL_SEED') ?? Math.floor(Math.random() * 2 ** 31);
  const path = process.env['FLUXLENS_DIFFERENTIAL_PATH'] || undefined;
  return { runs, seed, path };
}

/** Generous enough for a nightly-sized run of the given number of cases. */
export function differentialTimeout(settings: DifferentialSettings): number {
  return 120_000 + settings.runs * 20;
}

export const agrees = (a: Outcome, b: Outcome): boolean =>
  a.ok && b.ok ? a.value === b.value : !a.ok && !b.ok && !a.unexpected && !b.unexpected;

const show = (o: Outcome): string =>
  o.ok ? o.value : `${o.unexpected === true ? 'crash' : 'error'}: ${o.error}`;

/** fluxlens's answer: its own error class is a failure as Flux has them, anything else a crash. */
export function outcomeOf(run: () => string, expected: (error: unknown) => boolean): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return expected(error)
      ? { ok: false, error: message }
      : { ok: false, error: message, unexpected: true };
  }
}

export interface Differential<T> {
  /** What is compared, for messages: "substitution", "values composition". */
  subject: string;
  /** The test file, for the replay command. */
  testFile: string;
  arbitrary: fc.Arbitrary<T>;
  /** Both answers to one case. Throwing means the oracle broke, not a disagreement. */
  answer: (input: T) => Promise<{ fluxlens: Outcome; flux: Outcome }>;
  /**
   * From this many generated cases on, a run must see both kinds of agreement (both sides
   * succeed on more than a quarter, both fail on some): a generator that makes one side
   * fail (or succeed) on everything proves little. Replays of one path are exempt.
   */
  bothKindsFrom: number;
}

/** What a run compared: a run where one kind never happens proves little. */
interface Tally {
  cases: number;
  bothSucceeded: number;
  bothFailed: number;
  perSecond: number;
}

/** Either every case agrees, or this throws with the smallest disagreement. */
export async function expectAgreement<T>(
  d: Differential<T>,
  settings: DifferentialSettings,
): Promise<void> {
  let broken: unknown;
  const tally: Tally = { cases: 0, bothSucceeded: 0, bothFailed: 0, perSecond: 0 };
  const property = fc.asyncProperty(d.arbitrary, async (input) => {
    if (broken !== undefined) return false;
    try {
      const { fluxlens, flux } = await d.answer(input);
      tally.cases += 1;
      if (fluxlens.ok && flux.ok) tally.bothSucceeded += 1;
      if (!fluxlens.ok && !flux.ok) tally.bothFailed += 1;
      return agrees(fluxlens, flux);
    } catch (error) {
      broken = error;
      return false;
    }
  });
  const started = performance.now();
  const details = await fc.check(property, {
    numRuns: settings.runs,
    seed: settings.seed,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  });
  const seconds = (performance.now() - started) / 1000;
  if (broken !== undefined) throw broken;
  if (details.failed && details.counterexample !== null) {
    const [smallest] = details.counterexample;
    const { fluxlens, flux } = await d.answer(smallest);
    const message = [
      `fluxlens and Flux disagree on ${d.subject} (seed ${details.seed}, path "${details.counterexamplePath}", ` +
        `after ${details.numRuns} case(s), shrunk ${details.numShrinks} time(s))`,
      `smallest case: ${JSON.stringify(smallest)}`,
      `  fluxlens: ${show(fluxlens)}`,
      `  Flux:     ${show(flux)}`,
      `replay: FLUXLENS_DIFFERENTIAL_SEED=${details.seed} FLUXLENS_DIFFERENTIAL_PATH=${details.counterexamplePath} ` +
        `npx vitest run --project unit ${d.testFile}`,
    ].join('\n');
    console.error(message);
    throw new Error(message);
  }
  if (details.failed) throw new Error(`${d.subject}: ${String(details.errorInstance)}`);
  tally.perSecond = Math.round(tally.cases / seconds);
  if (settings.path === undefined && settings.runs >= d.bothKindsFrom) {
    if (tally.bothSucceeded <= tally.cases / 4 || tally.bothFailed === 0)
      throw new Error(
        `${d.subject}: ${tally.cases} cases, ${tally.bothSucceeded} succeeded and ${tally.bothFailed} failed on both sides: the generator does not reach both kinds of agreement`,
      );
  }
  console.info(
    `${d.subject}: ${tally.cases} cases agree with Flux, ${tally.bothSucceeded} succeeded and ` +
      `${tally.bothFailed} failed on both sides (seed ${settings.seed}, ${tally.perSecond} cases/s)`,
  );
}
