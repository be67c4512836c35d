/**
 * The timeout for a test hook that builds, spawns, starts a server or waits for one to stop.
 * Bun 1.4.5 gives hooks a 5 s default and does not apply bunfig's `[test] timeout` to them, so
 * each slow hook passes this explicitly: on a busy 2-core machine, a spawn and a migration alone
 * can take several seconds, and a hook that times out fails the tests of its file.
 */
export const SLOW_HOOK_TIMEOUT_MS = 60_000
