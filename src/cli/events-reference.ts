import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import '../events/all.ts';
import { declaredEvents, type EventDefinition } from '../events/event.ts';

/**
 * docs/reference/events.md: every event type of the log, from its declaration (src/events, `event()`): its version and
 * the versions it is upcast from, the stream it is written to (the `// stream` comment above it in its file), what it
 * means (its doc comment) and its fields (the schema's, each with its doc comment). The registry gives the types,
 * versions and schemas; the source gives the words, which no runtime object holds.
 */

const eventsDir = path.resolve(import.meta.dirname, '../events');

type Declared = { name: string; file: string; stream: Stream; doc: string; fieldDocs: Map<string, string> };
type Stream = { name: string; about: string };

/** A `/** ... *\/` comment's words, on one line. */
const wordsOf = (comment: string) =>
  comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map(line => line.replace(/^\s*\* ?/, '').trim())
    .filter(Boolean)
    .join(' ');

/** The doc comment that ends right before `at` (whitespace aside), or ''. */
function docBefore(source: string, at: number): string {
  const before = source.slice(0, at).trimEnd();
  if (!before.endsWith('*/')) return '';
  const start = before.lastIndexOf('/**');
  return start < 0 ? '' : wordsOf(before.slice(start));
}

/** The last `// stream <name>: <about>` comment (and the comment lines that continue it) before `at`. */
function streamBefore(source: string, at: number, file: string): Stream {
  const lines = source.slice(0, at).split('\n');
  const first = lines.map(line => line.startsWith('// stream ')).lastIndexOf(true);
  if (first < 0) throw new Error(`src/events/${file}: an event before any "// stream" comment`);
  const rest = lines.slice(first + 1);
  const continued = rest.slice(
    0,
    Math.max(
      rest.findIndex(line => !line.startsWith('// ')),
      0,
    ),
  );
  const text = [lines[first]!.slice('// stream '.length), ...continued.map(line => line.slice(3))].join(' ');
  const colon = text.indexOf(': ');
  return colon < 0 ? { name: text.trim(), about: '' } : { name: text.slice(0, colon), about: text.slice(colon + 2) };
}

/**
 * The doc comments of the schema's own fields in the `event(...)` call starting at `at`: those at the object literal's
 * depth (inside `event(`, `z.object(`, `{`), so a nested object's fields are not taken for the event's.
 */
function fieldDocsFrom(source: string, at: number): Map<string, string> {
  const docs = new Map<string, string>();
  let depth = 0;
  let pending: string | null = null;
  for (let i = at; i < source.length; i++) {
    const c = source[i]!;
    if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i) + 2;
      if (source.startsWith('/**', i) && depth === 3) pending = wordsOf(source.slice(i, end));
      i = end - 1;
    } else if (source.startsWith('//', i)) {
      i = source.indexOf('\n', i);
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      i = j;
      pending = null;
    } else if ('({['.includes(c)) {
      depth++;
    } else if (')}]'.includes(c)) {
      if (--depth === 0) return docs;
    } else if (/[A-Za-z_$]/.test(c) && depth === 3) {
      const key = /^[A-Za-z_$][\w$]*/.exec(source.slice(i))![0];
      if (pending !== null && /^\s*\??:/.test(source.slice(i + key.length))) docs.set(key, pending);
      pending = null;
      i += key.length - 1;
    } else if (!/\s/.test(c)) {
      pending = null;
    }
  }
  return docs;
}

/** Every `export const X = event('Type', ...)` of src/events, with its words from the source. */
function declarationsInSource(): Map<string, Declared> {
  const found = new Map<string, Declared>();
  const files = readdirSync(eventsDir).filter(f => f.endsWith('.ts') && f !== 'event.ts' && f !== 'all.ts');
  for (const file of files.sort()) {
    const source = readFileSync(path.join(eventsDir, file), 'utf8');
    for (const m of source.matchAll(/export const \w+ = event\(\s*'(\w+)'/g)) {
      const call = m.index + m[0].indexOf('event(') + 'event'.length;
      found.set(m[1]!, {
        name: m[1]!,
        file,
        stream: streamBefore(source, m.index, file),
        doc: docBefore(source, m.index),
        fieldDocs: fieldDocsFrom(source, call),
      });
    }
  }
  return found;
}

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** A field's type in a few words: text, integer, uuid, instant, one of ..., list of ..., object {...}; or null. */
export function typeWords(schema: unknown): string {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
      return `${typeWords(def.innerType)}, optional`;
    case 'nullable':
      return `${typeWords(def.innerType)} or null`;
    case 'default':
      return `${typeWords(def.innerType)} (default ${JSON.stringify(def.defaultValue)})`;
    case 'pipe':
      return typeWords(def.in);
    case 'string':
      return { uuid: 'uuid', datetime: 'instant (ISO 8601)', date: 'date' }[def.format as string] ?? 'text';
    case 'number':
      return def.format === 'safeint' || def.format === 'int32' ? 'integer' : 'number';
    case 'enum':
      return `one of ${Object.values(def.entries as Record<string, string>).join(', ')}`;
    case 'literal':
      return (def.values as unknown[]).map(v => JSON.stringify(v)).join(' or ');
    case 'array':
      return `list of ${typeWords(def.element)}`;
    case 'object':
      return `object {${Object.keys(def.shape as object).join(', ')}}`;
    case 'union':
      return (def.options as unknown[]).map(typeWords).join(' or ');
    case 'record':
      return `map of ${typeWords(def.valueType)}`;
    default:
      return def.type;
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function eventSection(definition: EventDefinition<string, z.ZodType>, declared: Declared): string[] {
  const shape = defOf(definition.schema).shape as Record<string, z.ZodType>;
  const older = Object.keys(definition.upcasters).map(v => `v${v}`);
  const version = `v${definition.version}` + (older.length ? ` (${older.join(', ')} upcast when read)` : '');
  const rows = Object.entries(shape).map(([key, field]) => {
    const words = declared.fieldDocs.get(key) ?? field.description ?? '';
    return `| \`${key}\` | ${cell(typeWords(field))} | ${cell(words)} |`;
  });
  return [
    `### ${definition.type}`,
    '',
    `${version}, \`src/events/${declared.file}\`.${declared.doc ? ` ${declared.doc}` : ''}`,
    '',
    '| field | type | meaning |',
    '|---|---|---|',
    ...rows,
    '',
  ];
}

/** The whole page, grouped by stream in the order the files and their declarations come. */
export function eventsMarkdown(): string {
  const declared = declarationsInSource();
  const registered = new Map(declaredEvents().map(d => [d.type, d]));
  for (const name of registered.keys())
    if (!declared.has(name))
      throw new Error(`event ${name} is registered but not declared as export const X = event(...)`);
  const lines = [
    '# Events',
    '',
    '<!-- generated by `npm run docs:events` (src/cli/events-reference.ts) from src/events: do not edit by hand -->',
    '',
    'Every event type the log holds, by the stream it is written to: its current version, what it means and its',
    'fields. An event is never changed once written: a field added later is optional (old events lack it), and a new',
    'version comes with an upcaster that reads the older ones as the newer (`event()` in `src/events/event.ts`). Fields',
    "are named as the stored JSON names them; money is integer rupiah. An audit export holds each event's `data` as",
    'stored, secrets as commitments ([auditing.md](../auditing.md)).',
    '',
  ];
  let stream = '';
  for (const d of declared.values()) {
    const definition = registered.get(d.name);
    if (!definition) throw new Error(`event ${d.name} (src/events/${d.file}) is not registered`);
    const heading = `${d.stream.name} (${d.file})`;
    if (heading !== stream) {
      lines.push(`## \`${d.stream.name}\``, '', ...(d.stream.about ? [`${d.stream.about}.`, ''] : []));
      stream = heading;
    }
    lines.push(...eventSection(definition, d));
  }
  return lines.join('\n');
}
