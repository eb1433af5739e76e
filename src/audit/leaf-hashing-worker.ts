/**
 * A thread of the leaf hashing pool (src/audit/leaf-hashing.ts): a page of the log (one JSON text) to its events' leaf
 * hashes (the chain's and the daily digests'), WIB dates and positions, parsed and hashed here so that the service's
 * event loop only reads the page and commits the chain and the digests.
 */
import os from 'node:os';
import { pageLeaves, type LeafKinds, type PageLeaves } from './log-leaves.ts';

// nobody waits for a checkpoint: this thread (Linux: the nice value is per thread) yields the CPU to the event loop and
// the database's appends, and takes what they leave; it still gets a share when the machine is busy, so the chain keeps up
try {
  os.setPriority(0, 10);
} catch {
  // not allowed here: the default priority
}

export default function hashLeaves(task: { text: string; kinds: LeafKinds }): PageLeaves {
  return pageLeaves(task.text, task.kinds);
}
