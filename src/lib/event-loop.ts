/** How often the hold's interval fires; it does nothing, so the longest delay timers accept. */
const HOLD_INTERVAL_MS = 2 ** 31 - 1

/**
 * Keeps the process's event loop open until the returned release is called. wagate's clock
 * unrefs its timers, so that a pending retry never keeps a finished command alive; a command
 * that waits for such a timer (in-process pairing waiting for its next connect attempt) must
 * therefore hold the loop open itself. Without a hold, Bun 1.4.5 does not sleep while the main
 * module awaits and only unref'd timers are pending: it spins at a full core until one fires.
 */
export function holdEventLoop(): () => void {
  const interval = setInterval(() => {}, HOLD_INTERVAL_MS)
  return () => clearInterval(interval)
}
