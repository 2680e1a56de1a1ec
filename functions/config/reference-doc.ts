/** Renders the key registry as the configuration reference of docs/configuration.md, so the two cannot drift. */
import { CONFIG_KEYS, type ConfigKeyDefinition, type ConfigLevel } from './registry.js';

const LEVEL_TEXT: Record<ConfigLevel, string> = {
  base: 'base only',
  app: 'app',
  'app-only': 'app only',
  tenant: 'tenant',
};

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function defaultText(definition: ConfigKeyDefinition): string {
  if (definition.defaultText !== undefined) return definition.defaultText;
  if (definition.default === null) return '_unset_';
  if (definition.default === '') return '`""`';
  return `\`${String(definition.default)}\``;
}

/**
 * A markdown table of every key: key, type, level, default, description. Rows follow the
 * registry's order. Every key may also be set in the base config through its upper-case
 * environment variable (say so next to the table).
 */
export function renderConfigReferenceMarkdown(): string {
  const lines = ['| Key | Type | Level | Default | Description |', '| --- | --- | --- | --- | --- |'];
  for (const definition of CONFIG_KEYS) {
    lines.push(
      `| \`${definition.key}\` | ${definition.type} | ${LEVEL_TEXT[definition.level]} | ${cell(defaultText(definition))} | ${cell(definition.description)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
