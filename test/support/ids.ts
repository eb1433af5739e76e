let issued = 0;

/**
 * The next UUID of this test file, counted (00000000-0000-4000-8000-000000000001, ...): a failing run can be read
 * and run again with the same ids. Each test file has a database of its own, so a count per file is unique.
 */
export function nextUuid(): string {
  issued++;
  return `00000000-0000-4000-8000-${issued.toString(16).padStart(12, '0')}`;
}
