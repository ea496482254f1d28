// Waiting on an observable condition instead of sleeping and hoping that something happened.
//
//   await waitFor(() => existsSync(file), { what: `${file} to appear` });
//   const n = await waitFor(async () => (await count()) >= 3 && count(), { what: 'three rows' });
//
// A test that orders events this way is as fast as the server allows, and when the condition
// never holds it fails with a message naming what it waited for (not with a later, puzzling
// assertion).

import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` (sync or async) until it returns a truthy value, and resolves with that
 * value. Rejects once `timeoutMs` have passed without it, with an error naming `what` (a string,
 * or a function giving one, called at the timeout, to describe the state reached) and the last
 * error `condition` threw, if any: a throwing condition counts as not yet true.
 *
 * @param {() => any | Promise<any>} condition
 * @param {object} [opts]
 * @param {number} [opts.timeoutMs]  give up after this long (default 10 s)
 * @param {number} [opts.intervalMs] pause between two checks (default 25 ms)
 * @param {string | (() => string)} opts.what  what is waited for, for the timeout message
 */
export async function waitFor(condition, { timeoutMs = 10_000, intervalMs = 25, what } = {}) {
  if (!what) throw new Error('waitFor needs `what`: the timeout message must say what it waited for');
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const description = typeof what === 'function' ? what() : what;
      const cause = lastError ? ` (last check threw: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${cause}`);
    }
    await sleep(intervalMs);
  }
}

