/**
 * yaml/ owns reading YAML that a pull request can write, within bounds on size, nodes,
 * nesting and alias expansion: everything of ours that parses YAML (render, policy) reads it
 * here. It must not give the values meaning or import anything of ours beyond model/ and errors.
 */
export { GoYamlError, goYamlTags, parseGoYaml } from './go-yaml.js';
export {
  composeBounded,
  ExpansionBudget,
  MAX_YAML_FILE_BYTES,
  TOO_BIG,
  TOO_DEEP,
  TOO_MANY_NODES,
  tooManyNodes,
} from './yaml-bounds.js';
export { parseDocuments, yamlOverLimit, type ParsedDocument } from './yaml.js';
export { parseFileDocuments } from './yaml-memo.js';
