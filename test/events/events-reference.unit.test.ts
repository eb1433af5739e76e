import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsMarkdown, typeWords } from '../../src/cli/events-reference.ts';
import { declaredEvents } from '../../src/events/event.ts';
import { z } from 'zod';

describe('docs/reference/events.md', () => {
  it('is what the declarations in src/events say (npm run docs:events writes it again)', () => {
    const written = readFileSync(path.resolve(import.meta.dirname, '../../docs/reference/events.md'), 'utf8');
    expect(written).toBe(eventsMarkdown());
  });

  it('names every declared event once, with its version, and says what each means', () => {
    const page = eventsMarkdown();
    for (const d of declaredEvents()) {
      const section = page.split(`\n### ${d.type}\n\n`);
      expect(section, d.type).toHaveLength(2);
      expect(section[1]!.startsWith(`v${d.version}`), d.type).toBe(true);
      const meaning = section[1]!.split('\n')[0]!.replace(/^v\d+[^,]*, `src\/events\/[\w-]+\.ts`\./, '');
      expect(meaning.trim(), `${d.type} has no doc comment`).not.toBe('');
    }
  });

  it('gives each field its type in words', () => {
    expect(typeWords(z.uuid().nullable())).toBe('uuid or null');
    expect(typeWords(z.int().optional())).toBe('integer, optional');
    expect(typeWords(z.enum(['A', 'B']).default('A'))).toBe('one of A, B (default "A")');
    expect(typeWords(z.array(z.object({ a: z.string(), b: z.boolean() })))).toBe('list of object {a, b}');
  });
});
