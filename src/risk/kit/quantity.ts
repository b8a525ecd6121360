/** Kubernetes resource quantities (`10Gi`, `500M`, `1.5e3`) as plain numbers, for comparing sizes. */

const SUFFIX: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY =
  /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E))?$/;

export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const number = Number(`${match[1]}${match[2] ?? ''}`);
  const factor = SUFFIX[match[3] ?? ''];
  return Number.isFinite(number) && factor !== undefined ? number * factor : undefined;
}
