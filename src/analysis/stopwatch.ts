/** Milliseconds per named step, summed when a step runs more than once, plus the total. */
export class Stopwatch {
  readonly #timings: Record<string, number> = {};
  readonly #started: number;

  constructor(private readonly now: () => number) {
    this.#started = now();
  }

  async time<T>(step: string, run: () => Promise<T>): Promise<T> {
    const start = this.now();
    try {
      return await run();
    } finally {
      this.#add(step, start);
    }
  }

  timeSync<T>(step: string, run: () => T): T {
    const start = this.now();
    try {
      return run();
    } finally {
      this.#add(step, start);
    }
  }

  finish(): Record<string, number> {
    this.#add('total', this.#started);
    return { ...this.#timings };
  }

  #add(step: string, start: number): void {
    this.#timings[step] = (this.#timings[step] ?? 0) + (this.now() - start);
  }
}
