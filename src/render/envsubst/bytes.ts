// Byte strings. Go indexes strings by byte, so `${#v}`, `${v:1:2}` and the trim operators count
// UTF-8 bytes. Evaluation therefore runs on "byte strings": JS strings whose every char is one
// byte (0-255). All syntax characters are ASCII, so parsing works unchanged on them.

export const RUNE_ERROR = 0xfffd;

export function toBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export function fromBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function isValidUtf8(bytes: string): boolean {
  try {
    strictUtf8.decode(Buffer.from(bytes, 'latin1'));
    return true;
  } catch {
    return false;
  }
}

/** Like Go's utf8.DecodeRuneInString: invalid input yields [U+FFFD, 1]. */
export function decodeRune(bytes: string, at: number): [rune: number, width: number] {
  const b0 = bytes.charCodeAt(at);
  if (Number.isNaN(b0)) return [RUNE_ERROR, 0];
  if (b0 < 0x80) return [b0, 1];
  let width: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) width = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) width = 3;
  else if (b0 >= 0xf0 && b0 <= 0xf4) width = 4;
  else return [RUNE_ERROR, 1];
  // The tighter bounds on the second byte reject overlong forms and surrogates, as Go does.
  if (b0 === 0xe0) lo = 0xa0;
  else if (b0 === 0xed) hi = 0x9f;
  else if (b0 === 0xf0) lo = 0x90;
  else if (b0 === 0xf4) hi = 0x8f;
  let rune = b0 & (width === 2 ? 0x1f : width === 3 ? 0x0f : 0x07);
  for (let i = 1; i < width; i++) {
    const b = bytes.charCodeAt(at + i);
    const min = i === 1 ? lo : 0x80;
    const max = i === 1 ? hi : 0xbf;
    if (Number.isNaN(b) || b < min || b > max) return [RUNE_ERROR, 1];
    rune = (rune << 6) | (b & 0x3f);
  }
  return [rune, width];
}

export function encodeRune(rune: number): string {
  return toBytes(String.fromCodePoint(rune));
}

export function runesOf(bytes: string): number[] {
  const runes: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const [rune, width] = decodeRune(bytes, i);
    runes.push(rune);
    i += width;
  }
  return runes;
}
