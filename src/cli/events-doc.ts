import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventsMarkdown } from './events-reference.ts';

// npm run docs:events: docs/reference/events.md from the declarations in src/events
const target = path.resolve(import.meta.dirname, '../../docs/reference/events.md');
mkdirSync(path.dirname(target), { recursive: true });
writeFileSync(target, eventsMarkdown());
console.log(`wrote ${target}`);
