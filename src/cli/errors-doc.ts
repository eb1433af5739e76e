import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorCodesMarkdown } from '../errors.ts';

// npm run docs:errors: docs/reference/errors.md from the registry in src/errors.ts
const target = path.resolve(import.meta.dirname, '../../docs/reference/errors.md');
writeFileSync(target, errorCodesMarkdown());
console.log(`wrote ${target}`);
