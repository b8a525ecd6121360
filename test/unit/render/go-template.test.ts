/**
 * ResourceSet templates as Go's text/template with `<< >>` evaluates them: the constructs
 * and functions fluxlens evaluates give Go's output; any other is named as not evaluated,
 * never approximated.
 */
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../src/render/flux/go-template.js';
import {
  TemplateError,
  TemplateUnsupported,
  Unknown,
  type Value,
} from '../../../src/render/flux/template-values.js';

const INPUTS: Value = {
  tenant: 'team1',
  replicas: 2,
  ratio: 2.5,
  enabled: true,
  version: '6.7.x',
  empty: '',
  nothing: [],
  components: ['ingress-nginx', 'cert-manager'],
  app: { version: '1.0', labels: { tier: 'web', owner: 'ops' } },
  id: new Unknown('`inputs.id`'),
};

const render = (text: string) => renderTemplate(text, INPUTS, {});

describe('a ResourceSet template', () => {
  it.each([
    ['prints a field', 'name: << inputs.tenant >>', 'name: team1'],
    ['prints a nested field', '<< inputs.app.version >>', '1.0'],
    ['prints numbers as Go does', '<< inputs.replicas >>/<< inputs.ratio >>', '2/2.5'],
    ['quotes through a pipeline', '<< inputs.version | quote >>', '"6.7.x"'],
    ['converts to int', '<< "3" | int >> << inputs.ratio | int >>', '3 2'],
    ['defaults an empty value', '<< inputs.empty | default "none" >>', 'none'],
    ['keeps a given value over the default', '<< inputs.tenant | default "x" >>', 'team1'],
    [
      'reads a missing key with get and default',
      '<< get inputs "name" | default inputs.tenant >>',
      'team1',
    ],
    [
      'branches with if/else',
      '<< if eq inputs.tenant "team1" >>enabled<< else >>disabled<< end >>',
      'enabled',
    ],
    [
      'branches with else if',
      '<< if eq inputs.tenant "x" >>a<< else if inputs.enabled >>b<< else >>c<< end >>',
      'b',
    ],
    ['trims whitespace around trim markers', 'a  \n  <<- inputs.tenant ->>  \n b', 'ateam1b'],
    [
      'ranges over a list with a variable',
      '<< range $c := inputs.components >>[<< $c >>]<< end >>',
      '[ingress-nginx][cert-manager]',
    ],
    [
      'ranges over a map in key order',
      '<< range $k, $v := inputs.app.labels >><< $k >>=<< $v >>;<< end >>',
      'owner=ops;tier=web;',
    ],
    [
      'rebinds the dot in range and with',
      '<< range inputs.components >><< . >>,<< end >><< with inputs.app >><< .version >><< end >>',
      'ingress-nginx,cert-manager,1.0',
    ],
    [
      'runs the else of an empty range',
      '<< range inputs.nothing >>x<< else >>none<< end >>',
      'none',
    ],
    [
      'declares variables',
      '<< $t := inputs.tenant | upper >><< $t >>-<< $t | lower >>',
      'TEAM1-team1',
    ],
    [
      'writes YAML with nindent',
      'labels:<< inputs.app.labels | toYaml | nindent 2 >>',
      'labels:\n  owner: ops\n  tier: web',
    ],
    ['writes sorted JSON', '<< inputs.app.labels | toJson >>', '{"owner":"ops","tier":"web"}'],
    ['formats with printf', '<< printf "%s-%03d" inputs.tenant 7 >>', 'team1-007'],
    [
      'replaces, trims and truncates',
      '<< "  a-b-c  " | trim | replace "-" "." | trunc 3 >>',
      'a.b',
    ],
    ['hashes with sha256sum', '<< "abc" | sha256sum | trunc 8 >>', 'ba7816bf'],
    ['prints a list as Go does', '<< inputs.components >>', '[ingress-nginx cert-manager]'],
    ['drops comments', 'a<</* note */>>b', 'ab'],
    ['joins a list', '<< join "," inputs.components >>', 'ingress-nginx,cert-manager'],
    [
      'combines and/or/not',
      '<< and inputs.enabled (not inputs.empty) >> << or inputs.empty "x" >>',
      'true x',
    ],
  ])('%s', (_case, template, expected) => {
    expect(render(template)).toBe(expected);
  });

  it.each([
    ['a function it does not evaluate', '<< inputs.tenant | slugify >>', '`slugify`'],
    ['the id only the cluster knows', 'name: cm-<< inputs.id >>', '`inputs.id`'],
    ['the id through get', '<< get inputs "id" >>', '`inputs.id`'],
    ['named templates', '<< define "x" >>a<< end >>', 'define'],
    ['the top-level dot', '<< .tenant >>', 'the top-level dot'],
  ])('names %s as not evaluated', (_case, template, what) => {
    expect(() => render(template)).toThrow(TemplateUnsupported);
    expect(() => render(template)).toThrow(what);
  });

  it.each([
    ['a key the inputs lack', '<< inputs.name >>', 'map has no entry for key "name"'],
    ['an unclosed action', '<< inputs.tenant', 'unclosed action'],
    ['an if without end', '<< if inputs.enabled >>a', 'unexpected EOF'],
    [
      'a failing required',
      '<< required "tenant is required" inputs.empty >>',
      'tenant is required',
    ],
  ])('fails as Go fails on %s', (_case, template, message) => {
    expect(() => render(template)).toThrow(TemplateError);
    expect(() => render(template)).toThrow(message);
  });
});
