/*
 * Bun 1.4.5 does not read `[test] timeout` from bunfig.toml at all: every test and every hook
 * gets 5 s unless the file or the call says otherwise. A test that spawns a process, builds, or
 * runs the WhatsApp simulator can take longer than that on a busy 2-core machine, so such files
 * call `setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)` (which covers the file's tests and hooks), and
 * slow hooks also pass their timeout explicitly. test/test-timeouts.test.ts checks both.
 */

/** The default timeout of a test or hook in a file that spawns processes or runs the simulator. */
export const SLOW_TEST_TIMEOUT_MS = 30_000

/**
 * The timeout for a test hook that builds, spawns, starts a server or waits for one to stop: a
 * spawn and a migration alone can take several seconds on a busy machine, and a hook that times
 * out fails the tests of its file.
 */
export const SLOW_HOOK_TIMEOUT_MS = 60_000
