// fluxlens's own bounds on one expansion (one object's text), not the dialect's: Flux has
// none, and a pull request can make a variable expand to gigabytes, or read a large one
// thousands of times. Checked as the expansion proceeds, before a string past them is made.
import { SubstitutionError } from './substitution-error.js';

/**
 * `${...}` evaluated in one object, nested ones included. A real object refers to a few
 * dozen variables; each reference reads its variable's whole value, so this also bounds
 * the work of reading a large one again and again.
 */
export const MAX_REFERENCES = 10_000;

/**
 * What substitution may add to one object. Kubernetes stores no object over 1.5 MiB, so
 * an object that grows by more cannot be applied; the bound holds for every string made on
 * the way too (an argument, an operator's result), which is what keeps memory bounded.
 */
export const MAX_GROWTH_BYTES = 1024 * 1024;

export const TOO_MANY_REFERENCES = `more than ${MAX_REFERENCES} variable references in one object`;
export const TOO_LARGE = `expansion grows the object by more than ${MAX_GROWTH_BYTES / 1024 / 1024} MiB`;

/** The budget of one expansion: references made so far, and the longest string allowed. */
export class SubstitutionBudget {
  #references = 0;
  readonly #maxLength: number;

  /** `inputLength`: the template's length in bytes. */
  constructor(inputLength: number) {
    this.#maxLength = inputLength + MAX_GROWTH_BYTES;
  }

  /** Counts one `${...}`; throws past MAX_REFERENCES. */
  reference(): void {
    this.#references += 1;
    if (this.#references > MAX_REFERENCES) {
      throw new SubstitutionError(TOO_MANY_REFERENCES, { limit: true });
    }
  }

  /** Throws when a string of `length` bytes, made or about to be, is past the bound. */
  fits(length: number): void {
    if (length > this.#maxLength) throw new SubstitutionError(TOO_LARGE, { limit: true });
  }
}
