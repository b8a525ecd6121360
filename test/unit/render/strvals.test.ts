import { describe, expect, it } from 'vitest';
import { StrvalsError, type StrvalsReason, parseSet } from '../../../src/render/helm/strvals.js';

function parsed(expr: string, asString = false, into: Record<string, unknown> = {}): unknown {
  parseSet(expr, into, asString);
  return into;
}

function failure(expr: string, into: Record<string, unknown> = {}): StrvalsError {
  try {
    parseSet(expr, into, false);
  } catch (error) {
    expect(error).toBeInstanceOf(StrvalsError);
    return error as StrvalsError;
  }
  throw new Error(`expected ${expr} to fail`);
}

// Rows follow Helm's own parser tests (helm.sh/helm/v4 pkg/strvals) and the `--set` guide.
describe('parseSet', () => {
  describe('keys and values', () => {
    it.each([
      ['sets a plain string', 'name1=value1', { name1: 'value1' }],
      [
        'sets comma-separated pairs',
        'name1=value1,name2=value2',
        { name1: 'value1', name2: 'value2' },
      ],
      [
        'ignores a trailing comma',
        'name1=value1,name2=value2,',
        { name1: 'value1', name2: 'value2' },
      ],
      ['keeps spaces inside a value', 'name1=one two three', { name1: 'one two three' }],
      [
        'sets an empty string for an empty value',
        'name1=,name2=value2',
        { name1: '', name2: 'value2' },
      ],
      [
        'unescapes a comma in a value',
        'name1=one\\,two,name2=three\\,four',
        { name1: 'one,two', name2: 'three,four' },
      ],
      ['unescapes an equals sign in a value', 'name1=one\\=two', { name1: 'one=two' }],
      ['drops a backslash at the very end', 'name1=value\\', { name1: 'value' }],
      ['nests dotted keys', 'outer.middle.inner=value', { outer: { middle: { inner: 'value' } } }],
      [
        'merges sibling keys into one map',
        'outer.inner1=value,outer.middle.inner=value',
        { outer: { inner1: 'value', middle: { inner: 'value' } } },
      ],
      [
        'keeps an escaped dot inside a key',
        'nodeSelector.kubernetes\\.io/role=master',
        { nodeSelector: { 'kubernetes.io/role': 'master' } },
      ],
      [
        'keeps escaped =, [ and a bare ] inside a key',
        'service.annotations.app\\.kubernetes\\.io/name\\=\\[backend]=api',
        { service: { annotations: { 'app.kubernetes.io/name=[backend]': 'api' } } },
      ],
      ['sets an empty value under a nested key', 'name1.name2=', { name1: { name2: '' } }],
      ['sets nothing for a dotted key ending the input', 'name1.', {}],
      ['sets nothing for an empty key', '=value', {}],
      [
        'keeps a __proto__ key as plain data',
        '__proto__.polluted=yes',
        { ['__proto__']: { polluted: 'yes' } },
      ],
    ])('%s', (_behaviour, expr, expected) => {
      const out = parsed(expr);
      expect(out).toEqual(expected);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    });
  });

  describe('lists', () => {
    it.each([
      ['reads {a,b} as a list', 'name1={value1,value2}', { name1: ['value1', 'value2'] }],
      ['keeps the space after a comma in a list', 'name={a, b}', { name: ['a', ' b'] }],
      ['types list items', 'name1={1021,902}', { name1: [1021, 902] }],
      ['reads {} as a list of one empty string', 'name={}', { name: [''] }],
      ['unescapes a brace', 'name=\\{a,b=c', { name: '{a', b: 'c' }],
      ['sets a list item by index', 'list[0]=foo,list[1]=bar', { list: ['foo', 'bar'] }],
      [
        'pads a list with nulls up to the index',
        'list[0]=foo,list[3]=bar',
        { list: ['foo', null, null, 'bar'] },
      ],
      [
        'sets a map inside a list item',
        'servers[0].port=80,servers[0].host=example',
        { servers: [{ port: 80, host: 'example' }] },
      ],
      ['fills nested lists', 'nested[1][1]=1', { nested: [null, [null, 1]] }],
      [
        'fills list items out of order',
        'name1.name2[1].foo=bar,name1.name2[0].foo=bar',
        { name1: { name2: [{ foo: 'bar' }, { foo: 'bar' }] } },
      ],
      ['creates an empty list for an index without a value', 'noval[0]', { noval: [] }],
      ['sets an empty string at an index with an empty value', 'noval[0]=', { noval: [''] }],
      ['reads an index with a sign or leading zeros', 'list[+01]=x', { list: [null, 'x'] }],
      ['ignores an index that never closes, as Helm 4 does', 'list[0', {}],
    ])('%s', (_behaviour, expr, expected) => {
      expect(parsed(expr)).toEqual(expected);
    });
  });

  describe('types', () => {
    it.each([
      ['true', true],
      ['TRUE', true],
      ['False', false],
      ['fal\u017fe', false], // Go's case folding: the long s folds to s
      ['null', null],
      ['NULL', null],
      ['0', 0],
      ['1234567890', 1234567890],
      ['-5', -5],
      ['+7', 7],
      ['-0', 0],
      ['9223372036854775807', 2 ** 63], // the nearest double, as Helm holds it after a values file
      ['9223372036854775808', '9223372036854775808'],
      ['00009', '00009'],
      ['1.5', '1.5'],
      ['1e3', '1e3'],
      ['yes', 'yes'],
      ['', ''],
    ])('types "value=%s" as Helm does, and keeps the text in string mode', (text, typed) => {
      expect(parsed(`value=${text}`)).toEqual({ value: typed });
      expect(Object.is((parsed(`value=${text}`) as { value: unknown }).value, -0)).toBe(false);
      expect(parsed(`value=${text}`, true)).toEqual({ value: text });
    });

    it('keeps every list item a string in string mode', () => {
      expect(parsed('name={1,true,null}', true)).toEqual({ name: ['1', 'true', 'null'] });
    });
  });

  describe('into existing values', () => {
    it('overwrites a scalar and keeps its siblings', () => {
      expect(
        parsed('image.tag=7.0.6', false, { image: { repository: 'redis', tag: '7.0.5' } }),
      ).toEqual({
        image: { repository: 'redis', tag: '7.0.6' },
      });
    });

    it('writes into the existing nested map itself', () => {
      const annotations = { team: 'web' };
      parseSet('ingress.annotations.owner=sre', { ingress: { annotations } }, false);
      expect(annotations).toEqual({ team: 'web', owner: 'sre' });
    });

    it('writes an existing list item in place', () => {
      const hosts = ['a.example', 'b.example'];
      const into = { hosts };
      parseSet('hosts[1]=c.example', into, false);
      expect(hosts).toEqual(['a.example', 'c.example']);
      expect(into.hosts).toBe(hosts);
    });

    it('grows a list into a new one and leaves the old one alone', () => {
      const hosts = ['a.example'];
      const into: Record<string, unknown> = { hosts };
      parseSet('hosts[2]=c.example', into, false);
      expect(hosts).toEqual(['a.example']);
      expect(into['hosts']).toEqual(['a.example', null, 'c.example']);
    });

    it('replaces a non-map list item when a key goes through it', () => {
      expect(parsed('list[0].name=x', false, { list: ['scalar'] })).toEqual({
        list: [{ name: 'x' }],
      });
    });
  });

  describe('errors', () => {
    it.each<[string, string, Record<string, unknown>, StrvalsReason]>([
      ['a key without a value', 'name1,name2=value2', {}, 'key has no value'],
      ['a dotted key without a value', 'name1.name2', {}, 'key has no value'],
      ['a dotted key that sets nothing', 'name1.=name2', {}, 'key has no value'],
      ['empty pairs between commas', 'name1=value1,,,,name2=value2', {}, 'key has no value'],
      ['an unterminated list', 'name1={1021,902', {}, "list must terminate with '}'"],
      ['a negative index', 'list[0]=foo,list[-20]=bar', {}, 'invalid list index'],
      ['a non-numeric index', 'list[first]=foo', {}, 'invalid list index'],
      ['an index above 65536', 'list[65537]=foo', {}, 'invalid list index'],
      ['text after an index', 'illegal[0]name.foo=bar', {}, 'unexpected data after a list index'],
      [
        'a key through a scalar',
        'image.tag=1',
        { image: 'redis:7' },
        'existing value is not a map or list',
      ],
      ['a key through null', 'image.tag=1', { image: null }, 'existing value is not a map or list'],
      ['an index into a map', 'image[0]=1', { image: {} }, 'existing value is not a map or list'],
      ['a name nested more than 30 levels', `${'a.'.repeat(31)}b=1`, {}, 'nested too deeply'],
    ])('rejects %s', (_behaviour, expr, into, reason) => {
      expect(failure(expr, into).reason).toBe(reason);
    });

    it('accepts a name nested exactly 30 levels', () => {
      expect(() => parsed(`${'a.'.repeat(30)}b=1`)).not.toThrow();
    });

    it("keeps the expression's text out of the reason", () => {
      const error = failure('kafka.brokers=kafka01.net:9092,kafka02.net:9092');
      expect(error.message).toBe('key "net:9092" has no value');
      expect(error.reason).toBe('key has no value');
    });
  });
});
