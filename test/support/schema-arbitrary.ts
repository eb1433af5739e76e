import fc from 'fast-check';
import { hostileText } from './hostile-text.ts';

/** The JSON Schema keywords the service's OpenAPI document uses for its inputs. */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
};

const formats: Record<string, fc.Arbitrary<string>> = {
  email: fc.emailAddress(),
  uuid: fc.uuid(),
  uri: fc.webUrl({ validSchemes: ['https', 'http'] }),
  date: fc
    .date({ min: new Date('2024-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
    .map(d => d.toISOString().slice(0, 10)),
  'date-time': fc
    .date({ min: new Date('2024-01-01'), max: new Date('2027-12-31'), noInvalidDate: true })
    .map(d => d.toISOString()),
};

/** Values a property of that name takes in the service under test (real ids), offered beside the schema's own. */
export type Known = Record<string, fc.Arbitrary<unknown>>;

/** Resolves a local `#/components/...` reference against the document. */
const resolve = (schema: JsonSchema, document: unknown): JsonSchema => {
  if (!schema.$ref) return schema;
  const target = schema.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], document);
  return resolve(target as JsonSchema, document);
};

/** Values the schema accepts, as a client following the document would send them. */
export function validValueOf(schema: JsonSchema, document: unknown, known: Known = {}): fc.Arbitrary<unknown> {
  const s = resolve(schema, document);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.oneOf ?? s.anyOf;
  if (branches) return fc.oneof(...branches.map(b => validValueOf(b, document, known)));
  if (s.allOf) return validValueOf(Object.assign({}, ...s.allOf.map(b => resolve(b, document))), document, known);
  const type = Array.isArray(s.type) ? s.type.find(t => t !== 'null') : s.type;
  switch (type) {
    case 'string': {
      if (s.format && formats[s.format]) return formats[s.format]!;
      if (s.pattern)
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter(v => v.length <= (s.maxLength ?? Infinity) && v.length >= (s.minLength ?? 0));
      return fc.string({
        unit: 'grapheme-ascii',
        minLength: Math.max(s.minLength ?? 0, 1),
        maxLength: Math.min(s.maxLength ?? 40, 40),
      });
    }
    case 'integer':
    case 'number': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
      const max =
        s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Math.max(min, 0) + 10_000_000);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValueOf(s.items ?? {}, document, known), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 3),
      });
    case 'object': {
      const properties = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const record = Object.fromEntries(
        Object.entries(properties).map(([k, v]) => {
          const value = validValueOf(v, document, known);
          return [k, known[k] ? fc.oneof({ weight: 3, arbitrary: known[k]! }, { weight: 1, arbitrary: value }) : value];
        }),
      );
      return fc.record(record, { requiredKeys: Object.keys(properties).filter(k => required.has(k)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** What a careless or hostile client sends instead: another type, hostile text, nothing at all. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(null, true, -1, 0, 1e21, 2 ** 53, 1.5, [], {}, '', ' '),
  fc.jsonValue({ maxDepth: 2 }),
);

/**
 * A value for the schema that is valid most of the time and, where it is an object, sometimes has one field wrong or
 * missing (the kinds of input the handler must refuse with a documented 4xx, never a 5xx).
 */
export function valueOf(schema: JsonSchema, document: unknown, known: Known = {}): fc.Arbitrary<unknown> {
  const s = resolve(schema, document);
  const valid = validValueOf(s, document, known);
  const fields = Object.keys(s.properties ?? {});
  if (fields.length === 0) return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: wrongValue });
  const oneFieldWrong = fc
    .tuple(valid, fc.constantFrom(...fields), fc.option(wrongValue, { nil: undefined }))
    .map(([value, field, wrong]) => {
      const changed = { ...(value as Record<string, unknown>) };
      if (wrong === undefined) delete changed[field];
      else changed[field] = wrong;
      return changed;
    });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 2, arbitrary: oneFieldWrong },
    { weight: 1, arbitrary: wrongValue },
  );
}
