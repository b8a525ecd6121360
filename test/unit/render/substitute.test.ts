import { describe, expect, it } from 'vitest';
import {
  SubstitutionError,
  type VarSource,
  collectVariables,
  envsubst,
  substituteManifest,
} from '../../../src/render/builtin/substitute.js';

const VARS: Record<string, string> = {
  SECRET_DOMAIN: 'example.com',
  APP: 'podinfo',
  MIXED: 'abcdEFGH28ij',
  UPPER: 'ABCDEFGH28IJ',
  FILE: 'bash.string.txt',
  PATH_NAME: '/path/to/file',
  STR: 'abcABC123ABCabc',
  SLASHED: 'foo/bar/baz',
  STARS: 'a*b*c',
  ACCENT: 'héllo',
  EMPTY: '',
  NUM: '3',
};

const lookup = (name: string): string | undefined =>
  Object.hasOwn(VARS, name) ? VARS[name] : undefined;

const strict = (input: string): string => envsubst(input, lookup, { strict: true });
const lenient = (input: string): string => envsubst(input, lookup, { strict: false });

function errorOf(run: () => unknown): SubstitutionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SubstitutionError);
    return error as SubstitutionError;
  }
  throw new Error('expected a SubstitutionError');
}

describe('envsubst', () => {
  describe('plain references and escapes', () => {
    it.each([
      ['replaces ${var} with its value', '${APP}', 'podinfo'],
      [
        'replaces every reference inside surrounding text',
        'https://${APP}.${SECRET_DOMAIN}/',
        'https://podinfo.example.com/',
      ],
      ['substitutes a set-but-empty variable with nothing', 'a${EMPTY}b', 'ab'],
      ['leaves text without any $ untouched', 'plain: text {braces}', 'plain: text {braces}'],
      ['does not substitute a bare $var', '$APP', '$APP'],
      ['does not substitute a Kubernetes $(var) reference', '$(APP)', '$(APP)'],
      ['does not substitute when a space separates $ and {', '$ {APP}', '$ {APP}'],
      ['keeps a lone trailing $', 'cost 5$', 'cost 5$'],
      ['keeps a stray closing brace', '}${APP}}', '}podinfo}'],
      ['keeps a $${var} escape as a literal ${var}', '$${APP}', '${APP}'],
      ['turns $$ into a single $ even before a plain word', '$$APP', '$APP'],
      ['unescapes pairs left to right, so $$$${var} stays literal', '$$$${APP}', '$${APP}'],
      ['substitutes after an escaped dollar in $$${var}', '$$${APP}', '$podinfo'],
      ['keeps a backslash before ${var} and still substitutes', '\\${APP}', '\\podinfo'],
      ['keeps backslashes outside expressions verbatim', '\\\\server\\share', '\\\\server\\share'],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });

    it('does not report an escaped reference as missing in strict mode', () => {
      expect(strict('$${NOT_DEFINED} and $${NOT_DEFINED:=x}')).toBe(
        '${NOT_DEFINED} and ${NOT_DEFINED:=x}',
      );
    });
  });

  describe('default operators', () => {
    it.each([
      ['uses the default of ${var=default} when unset', '${MISSING=fallback}', 'fallback'],
      ['uses the default of ${var:=default} when unset', '${MISSING:=fallback}', 'fallback'],
      ['uses the default of ${var:-default} when unset', '${MISSING:-fallback}', 'fallback'],
      ['ignores the default of ${var=default} when set', '${APP=fallback}', 'podinfo'],
      ['ignores the default of ${var:=default} when set', '${APP:=fallback}', 'podinfo'],
      ['ignores the default of ${var:-default} when set', '${APP:-fallback}', 'podinfo'],
      [
        'uses the default of ${var=default} for a set-but-empty variable too',
        '${EMPTY=fallback}',
        'fallback',
      ],
      [
        'uses the default of ${var:-default} for a set-but-empty variable',
        '${EMPTY:-fallback}',
        'fallback',
      ],
      ['expands a variable inside a default', '${MISSING:=${APP}}', 'podinfo'],
      [
        'concatenates text and variables inside a default',
        '${MISSING:=pre-${APP}-${NUM}x}',
        'pre-podinfo-3x',
      ],
      ['applies operators inside a default', '${MISSING:=${MIXED^^}}', 'ABCDEFGH28IJ'],
      ['nests defaults inside defaults', '${MISSING:=${ALSO_MISSING:=deep}}', 'deep'],
      ['allows spaces, colons and slashes in a default', '${MISSING:=a b:c/d}', 'a b:c/d'],
      ['gives an empty string for an empty default', '[${MISSING:=}]', '[]'],
      ['does not unescape $$ inside a default', '${MISSING:=$${APP}}', '$podinfo'],
      [
        'treats ${var:+alt} like a default, not as bash alternate value (unset)',
        '${MISSING:+alt}',
        'alt',
      ],
      [
        'treats ${var:+alt} like a default, not as bash alternate value (set)',
        '${APP:+alt}',
        'podinfo',
      ],
      ['treats ${var:?msg} as a default instead of failing', '${MISSING:?msg}', 'msg'],
      ['reads ${var:-1} as a default, not a negative offset', '${MISSING:-1}', '1'],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });
  });

  describe('case operators', () => {
    it.each([
      ['upper-cases the first character with ${var^}', '${MIXED^}', 'AbcdEFGH28ij'],
      ['upper-cases everything with ${var^^}', '${MIXED^^}', 'ABCDEFGH28IJ'],
      ['lower-cases the first character with ${var,}', '${UPPER,}', 'aBCDEFGH28IJ'],
      ['lower-cases everything with ${var,,}', '${UPPER,,}', 'abcdefgh28ij'],
      ['changes the case of non-ASCII letters', '${ACCENT^^}', 'HÉLLO'],
      ['leaves an already upper-case first letter alone', '${UPPER^}', 'ABCDEFGH28IJ'],
      ['leaves the value alone for a mixed ${var,^} operator', '${MIXED,^}', 'abcdEFGH28ij'],
      ['gives an empty string for an empty value', '[${EMPTY^^}]', '[]'],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });
  });

  describe('length and substring', () => {
    it.each([
      ['gives the length with ${#var}', '${#MIXED}', '12'],
      ['counts UTF-8 bytes, not characters, in ${#var}', '${#ACCENT}', '6'],
      ['gives 0 for the length of an empty value', '${#EMPTY}', '0'],
      ['cuts from an offset with ${var:pos}', '${PATH_NAME:6}', 'to/file'],
      ['cuts offset and length with ${var:pos:len}', '${PATH_NAME:6:2}', 'to'],
      ['counts a negative length back from the end', '${PATH_NAME:1:-5}', 'path/to'],
      [
        'counts a negative offset written with a space as unparsable (whole value)',
        '${PATH_NAME: -4}',
        '/path/to/file',
      ],
      ['gives an empty string for an offset past the end', '[${PATH_NAME:99}]', '[]'],
      ['stops at the end when the length runs past it', '${PATH_NAME:9:50}', 'file'],
      ['returns the whole value for a non-numeric offset', '${PATH_NAME:x}', '/path/to/file'],
      ['takes the offset from a nested variable', '${MIXED:${NUM}}', 'dEFGH28ij'],
      ['counts offsets in UTF-8 bytes', '${ACCENT:3}', 'llo'],
      ['treats a run of colons as one separator', '${PATH_NAME:6::2}', 'to'],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });
  });

  describe('pattern removal', () => {
    it.each([
      ['removes the shortest matching prefix with ${var#pat}', '${FILE#*.}', 'string.txt'],
      ['removes the longest matching prefix with ${var##pat}', '${FILE##*.}', 'txt'],
      ['removes the shortest matching suffix with ${var%pat}', '${FILE%.*}', 'bash.string'],
      ['removes the longest matching suffix with ${var%%pat}', '${FILE%%.*}', 'bash'],
      ['lets * match slashes in a prefix pattern', '${PATH_NAME##*/}', 'file'],
      ['removes only up to the first slash with the short form', '${PATH_NAME#*/}', 'path/to/file'],
      ['removes a literal prefix', '${SECRET_DOMAIN#example.}', 'com'],
      ['keeps the value when the prefix does not match', '${FILE#*/}', 'bash.string.txt'],
      ['keeps the value when the suffix does not match', '${FILE%.yaml}', 'bash.string.txt'],
      [
        'keeps the value when a literal prefix is only found later',
        '${SECRET_DOMAIN#com}',
        'example.com',
      ],
      ['matches ? against one character', '${FILE#????.}', 'string.txt'],
      ['matches a character class in a prefix pattern', '${FILE#[a-c]*.}', 'string.txt'],
      [
        'never matches a character class in a suffix pattern (the pattern is reversed)',
        '${FILE%[a-z]}',
        'bash.string.txt',
      ],
      [
        'removes one byte for a bare * because only non-empty prefixes are tried',
        '${FILE#*}',
        'ash.string.txt',
      ],
      ['keeps the value for a malformed pattern', '${FILE#[}', 'bash.string.txt'],
      [
        'takes the pattern from a nested variable',
        '${SECRET_DOMAIN%${SECRET_DOMAIN#*.}}',
        'example.',
      ],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });
  });

  describe('replacement', () => {
    it.each([
      [
        'replaces the first dot in the cluster domain example',
        '${SECRET_DOMAIN/./-}',
        'example-com',
      ],
      ['replaces only the first match with ${var/pat/repl}', '${STR/abc/xyz}', 'xyzABC123ABCabc'],
      ['replaces every match with ${var//pat/repl}', '${STR//abc/xyz}', 'xyzABC123ABCxyz'],
      ['replaces a leading match with ${var/#pat/repl}', '${STR/#abc/XYZ}', 'XYZABC123ABCabc'],
      ['replaces a trailing match with ${var/%pat/repl}', '${STR/%abc/XYZ}', 'abcABC123ABCXYZ'],
      [
        'does not replace a /# pattern that is not at the start',
        '${STR/#ABC/XYZ}',
        'abcABC123ABCabc',
      ],
      [
        'does not replace a /% pattern that is not at the end',
        '${STR/%ABC/XYZ}',
        'abcABC123ABCabc',
      ],
      ['keeps the value when the pattern is absent', '${STR/zzz/xyz}', 'abcABC123ABCabc'],
      ['deletes the match when the replacement is empty', '${SECRET_DOMAIN/./}', 'examplecom'],
      [
        'keeps the value for /# with an empty replacement',
        '${SECRET_DOMAIN/#example./}',
        'example.com',
      ],
      ['treats the pattern literally, not as a glob', '${STARS/*/+}', 'a+b*c'],
      ['accepts an escaped slash in the pattern', '${SLASHED//\\//-}', 'foo-bar-baz'],
      ['accepts an escaped slash in the replacement', '${SECRET_DOMAIN/./\\/}', 'example/com'],
      ['reads a run of slashes as one separator', '${STR/abc//x}', 'xABC123ABCabc'],
      [
        'takes pattern and replacement from nested variables',
        '${SECRET_DOMAIN//${SECRET_DOMAIN#*.}/${APP}}',
        'example.podinfo',
      ],
    ])('%s', (_name, input, expected) => {
      expect(strict(input)).toBe(expected);
    });
  });

  describe('strict and lenient modes', () => {
    const notSet = (name: string): string => `variable not set (strict mode): "${name}"`;

    it.each([
      ['${MISSING}', notSet('MISSING'), ''],
      ['${#MISSING}', notSet('MISSING'), '0'],
      ['${MISSING^^}', notSet('MISSING'), ''],
      ['${MISSING:0:2}', notSet('MISSING'), ''],
      ['${MISSING#x}', notSet('MISSING'), ''],
      ['${MISSING/a/b}', notSet('MISSING'), ''],
      ['${1}', notSet('1'), ''],
      ['${APP:=${MISSING}}', notSet('MISSING'), 'podinfo'],
    ])(
      'in strict mode %s fails naming the variable; lenient mode gives %j',
      (input, message, relaxed) => {
        const error = errorOf(() => strict(input));
        expect(error.message).toBe(message);
        expect(error.code).toBe('invalid-content');
        expect(lenient(input)).toBe(relaxed);
      },
    );

    it.each([
      ['${MISSING:=x}', 'x'],
      ['${MISSING=x}', 'x'],
      ['${MISSING:-x}', 'x'],
      ['${EMPTY}', ''],
      ['text only', 'text only'],
    ])('accepts %s in both modes', (input, expected) => {
      expect(strict(input)).toBe(expected);
      expect(lenient(input)).toBe(expected);
    });

    it('reports the missing variable name on the error', () => {
      expect(errorOf(() => strict('x ${NOPE}')).variable).toBe('NOPE');
    });

    it('never resolves names from the object prototype of the lookup', () => {
      const vars: Record<string, string> = { A: '1' };
      const own = (name: string) => (Object.hasOwn(vars, name) ? vars[name] : undefined);
      expect(envsubst('${toString}${constructor}', own, { strict: false })).toBe('');
    });
  });

  describe('syntax errors', () => {
    it.each([
      ['an unterminated reference', '${APP', 'missing closing brace'],
      ['${var-default}, which Flux does not support', '${APP-default}', 'missing closing brace'],
      ['${var+alt}, which Flux does not support', '${APP+alt}', 'missing closing brace'],
      ['a dash in the variable name', '${my-var}', 'missing closing brace'],
      ['a dot in the variable name', '${app.name}', 'missing closing brace'],
      ['an empty reference', '${}', 'unable to parse variable name'],
      ['a space before the name', '${ APP}', 'unable to parse variable name'],
      ['a length without a name', '${#}', 'bad substitution'],
      ['a replacement without its second slash', '${APP/x}', 'bad substitution'],
      ['a replace-all without its second slash', '${APP//x}', 'bad substitution'],
      ['a removal without a pattern', '${APP#}', 'unable to parse substitution within function'],
      ['a substring without an offset', '${APP:}', 'unable to parse substitution within function'],
      [
        'a substring whose offset starts with a multi-byte character',
        '${APP:é}',
        'bad substitution',
      ],
      ['an unterminated default', '${APP:=abc', 'unable to parse substitution within function'],
      ['three case operators', '${APP^^^}', 'bad substitution'],
      ['text mixed with a variable in a replace pattern', '${APP/a${NUM}/c}', 'bad substitution'],
    ])('rejects %s', (_name, input, message) => {
      expect(errorOf(() => lenient(input)).message).toBe(message);
    });

    it('reports a syntax error even when an earlier variable is missing in strict mode', () => {
      expect(errorOf(() => strict('${MISSING} ${APP')).message).toBe('missing closing brace');
    });
  });
});

describe('collectVariables', () => {
  const cm = (name: string, optional = false): VarSource => ({ kind: 'ConfigMap', name, optional });
  const secret = (name: string, optional = false): VarSource => ({
    kind: 'Secret',
    name,
    optional,
  });

  it.each([
    [
      'lets a later source override an earlier one',
      {
        inline: undefined,
        sources: [
          { ref: cm('a'), data: { X: '1', Y: 'a' } },
          { ref: secret('b'), data: { X: '2' } },
        ],
      },
      { X: '2', Y: 'a' },
    ],
    [
      'lets inline substitute override every source',
      {
        inline: { X: 'inline' },
        sources: [
          { ref: cm('a'), data: { X: '1' } },
          { ref: secret('b'), data: { X: '2' } },
        ],
      },
      { X: 'inline' },
    ],
    [
      'strips line feeds from source values',
      { inline: undefined, sources: [{ ref: secret('tls'), data: { KEY: 'line1\nline2\n' } }] },
      { KEY: 'line1line2' },
    ],
    [
      'strips line feeds from inline values',
      { inline: { MSG: 'a\nb' }, sources: [] },
      { MSG: 'ab' },
    ],
    [
      'keeps the carriage return of a CRLF value',
      { inline: undefined, sources: [{ ref: secret('win'), data: { PASS: 'secret\r\n' } }] },
      { PASS: 'secret\r' },
    ],
    [
      'skips an optional source that is not found',
      { inline: { A: '1' }, sources: [{ ref: cm('absent', true), data: undefined }] },
      { A: '1' },
    ],
    [
      'still reads an optional source that exists',
      { inline: undefined, sources: [{ ref: cm('present', true), data: { B: '2' } }] },
      { B: '2' },
    ],
    ['gives no variables for no input', { inline: undefined, sources: [] }, {}],
    [
      'accepts underscores and digits after the first character',
      { inline: { _x: '1', A1_B2: '2', __proto__: '3' }, sources: [] },
      { _x: '1', A1_B2: '2', __proto__: '3' },
    ],
  ])('%s', (_name, input, expected) => {
    const result = collectVariables(input);
    expect(result).toEqual(expected);
    expect(Object.keys(result)).toEqual(Object.keys(expected));
  });

  it('keeps __proto__ as an ordinary variable', () => {
    const vars = collectVariables({ inline: JSON.parse('{"__proto__":"x"}'), sources: [] });
    expect(Object.hasOwn(vars, '__proto__')).toBe(true);
    expect(vars['__proto__']).toBe('x');
  });

  it.each([
    ['ConfigMap', cm('cluster-vars'), "substitute from 'ConfigMap/cluster-vars' error: not found"],
    [
      'Secret',
      secret('cluster-secrets'),
      "substitute from 'Secret/cluster-secrets' error: not found",
    ],
  ])('fails for a required %s that is not found', (_kind, ref, message) => {
    const error = errorOf(() =>
      collectVariables({
        inline: { A: '1' },
        sources: [
          { ref: cm('ok'), data: {} },
          { ref, data: undefined },
        ],
      }),
    );
    expect(error.message).toBe(message);
  });

  it.each(['1ABC', 'my-var', 'app.name', 'héllo', 'A B', ''])(
    'rejects the invalid variable name %j, naming it but not its value',
    (name) => {
      const error = errorOf(() =>
        collectVariables({
          inline: undefined,
          sources: [{ ref: secret('s'), data: { [name]: 'hunter2' } }],
        }),
      );
      expect(error.message).toBe(
        `'${name}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'`,
      );
      expect(error.message).not.toContain('hunter2');
    },
  );
});

describe('substituteManifest', () => {
  const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'podinfo', ...metadata },
    spec,
  });
  const on = { strict: true, always: false };

  it.each([
    ['turns a substituted number into a number', { replicas: '${n}' }, { n: '3' }, { replicas: 3 }],
    [
      'turns a substituted true into a boolean',
      { paused: '${flag}' },
      { flag: 'true' },
      { paused: true },
    ],
    [
      'reads yes as a boolean, as YAML 1.1 does',
      { paused: '${flag}' },
      { flag: 'yes' },
      { paused: true },
    ],
    [
      'reads a leading zero as octal, as YAML 1.1 does',
      { mode: '${m}' },
      { m: '0644' },
      { mode: 420 },
    ],
    ['keeps a clock time as a string', { at: '${t}' }, { t: '10:30' }, { at: '10:30' }],
    ['keeps a date as a string', { on: '${d}' }, { d: '2024-01-01' }, { on: '2024-01-01' }],
    ['keeps a number inside longer text a string', { tag: 'v${n}' }, { n: '3' }, { tag: 'v3' }],
    ['gives null for an empty value', { value: '${e}' }, { e: '' }, { value: null }],
    ['cuts a value at a YAML comment', { replicas: '${n}' }, { n: '3 # three' }, { replicas: 3 }],
    [
      'drops the CR that a CRLF value keeps',
      { password: '${p}' },
      { p: 'secret\r' },
      { password: 'secret' },
    ],
    [
      'substitutes the cluster domain example',
      { host: 'app.${SECRET_DOMAIN/./-}.internal' },
      { SECRET_DOMAIN: 'example.com' },
      { host: 'app.example-com.internal' },
    ],
    [
      'keeps existing strings that look like other types',
      { a: 'true', b: 'yes', c: '0777', d: '1.5', e: '${n}', f: 1.5, g: false },
      { n: '1' },
      { a: 'true', b: 'yes', c: '0777', d: '1.5', e: 1, f: 1.5, g: false },
    ],
    [
      'keeps an escaped $${var} as literal text',
      { script: 'echo $${HOME} ${n}' },
      { n: '1' },
      { script: 'echo ${HOME} 1' },
    ],
    ['substitutes in keys too', { '${k}': 'v' }, { k: 'key' }, { key: 'v' }],
    [
      'substitutes inside a line longer than 80 columns without folding it',
      { long: `${'x '.repeat(60)}\${n} ${'y '.repeat(20)}end` },
      { n: 'HERE' },
      { long: `${'x '.repeat(60)}HERE ${'y '.repeat(20)}end` },
    ],
    [
      'substitutes inside a multi-line string and keeps its lines',
      { script: 'set -e\necho ${n}\nexit 0\n' },
      { n: 'hi' },
      { script: 'set -e\necho hi\nexit 0\n' },
    ],
    [
      'reads a backslash n from a value literally inside a quoted string',
      { cmd: "it's: ${v}" },
      { v: '\\n' },
      { cmd: "it's: \\n" },
    ],
  ])('%s', (_name, spec, vars, expected) => {
    const out = substituteManifest(deployment(spec), vars, on);
    expect(out['spec']).toEqual(expected);
    expect(out['metadata']).toEqual({ name: 'podinfo' });
  });

  it('does not modify the input manifest', () => {
    const input = deployment({ replicas: '${n}' });
    const snapshot = structuredClone(input);
    substituteManifest(input, { n: '3' }, on);
    expect(input).toEqual(snapshot);
  });

  describe('when substitution is skipped', () => {
    it.each([
      ['labelled disabled', { labels: { 'kustomize.toolkit.fluxcd.io/substitute': 'disabled' } }],
      [
        'annotated disabled',
        { annotations: { 'kustomize.toolkit.fluxcd.io/substitute': 'disabled' } },
      ],
    ])(
      'returns an object %s unchanged, even with missing variables in strict mode',
      (_how, metadata) => {
        const input = deployment({ replicas: '${MISSING}' }, metadata);
        expect(substituteManifest(input, { n: '3' }, on)).toBe(input);
      },
    );

    it.each([
      [
        'a different label value',
        { labels: { 'kustomize.toolkit.fluxcd.io/substitute': 'enabled' } },
      ],
      [
        'a differently cased value',
        { annotations: { 'kustomize.toolkit.fluxcd.io/substitute': 'Disabled' } },
      ],
      ['a different key', { labels: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } }],
    ])('still substitutes with %s', (_how, metadata) => {
      const out = substituteManifest(deployment({ replicas: '${n}' }, metadata), { n: '3' }, on);
      expect(out['spec']).toEqual({ replicas: 3 });
    });

    it('returns the same object when there are no variables and the strategy is not Always', () => {
      const input = deployment({ replicas: '${n:=2}', image: '${MISSING}' });
      expect(substituteManifest(input, {}, { strict: true, always: false })).toBe(input);
    });

    it('returns the same object when the manifest holds no $ at all', () => {
      const input = deployment({ replicas: 2 });
      expect(substituteManifest(input, { n: '3' }, on)).toBe(input);
    });
  });

  describe('with substituteStrategy Always', () => {
    it.each([
      [
        'applies defaults with zero variables',
        { strict: true },
        { replicas: '${n:=2}' },
        { replicas: 2 },
      ],
      [
        'blanks a missing variable in lenient mode',
        { strict: false },
        { image: 'repo-${tag}' },
        { image: 'repo-' },
      ],
    ])('%s', (_name, mode, spec, expected) => {
      const out = substituteManifest(deployment(spec), {}, { ...mode, always: true });
      expect(out['spec']).toEqual(expected);
    });

    it('fails on a missing variable without default in strict mode', () => {
      const error = errorOf(() =>
        substituteManifest(
          deployment({ image: 'repo:${tag}' }),
          {},
          { strict: true, always: true },
        ),
      );
      expect(error.variable).toBe('tag');
    });
  });

  describe('errors', () => {
    it('names the object and the variable when one is missing in strict mode', () => {
      const error = errorOf(() =>
        substituteManifest(deployment({ image: '${IMAGE}' }), { n: '1' }, on),
      );
      expect(error.message).toBe(
        "post build failed for 'Deployment/podinfo': envsubst error: variable substitution failed: " +
          'variable not set (strict mode): "IMAGE"',
      );
      expect(error.variable).toBe('IMAGE');
    });

    it('never resolves a variable from the object prototype', () => {
      const error = errorOf(() =>
        substituteManifest(deployment({ a: '${toString}' }), { n: '1' }, on),
      );
      expect(error.variable).toBe('toString');
    });

    it('reports a syntax error with the object name', () => {
      const error = errorOf(() => substituteManifest(deployment({ a: '${n' }), { n: '1' }, on));
      expect(error.message).toBe(
        "post build failed for 'Deployment/podinfo': envsubst error: variable substitution failed: missing closing brace",
      );
    });

    it('rejects an invalid variable name, naming the object', () => {
      const error = errorOf(() =>
        substituteManifest(deployment({ a: '${n}' }), { 'bad-name': 'x' }, on),
      );
      expect(error.message).toContain("'Deployment/podinfo'");
      expect(error.message).toContain("'bad-name' var name is invalid");
    });

    it('fails like Flux when an empty value leaves a dangling colon', () => {
      const input = deployment({ image: 'repo:${tag}' });
      const error = errorOf(() => substituteManifest(input, {}, { strict: false, always: true }));
      expect(error.message).toContain('YAMLToJSON');
    });

    it.each([
      ['a nested mapping', 'hunter2: x'],
      ['an unterminated quote', '"hunter2'],
      ['an infinite number', '.inf'],
    ])('fails without echoing the value when it breaks the YAML with %s', (_what, value) => {
      const error = errorOf(() =>
        substituteManifest(deployment({ password: '${p}' }), { p: value }, on),
      );
      expect(error.message).toMatch(
        /^post build failed for 'Deployment\/podinfo': envsubst error: YAMLToJSON: /,
      );
      expect(error.message).not.toContain('hunter2');
      expect(error.cause).toBeUndefined();
    });
  });
});
