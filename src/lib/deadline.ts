import type { Clock } from "./clock"

/**
 * Settles like `work`, or rejects with `new Error(reason)` once `timeoutMs` has passed on `clock`,
 * whichever comes first. The work itself is not cancelled (a late answer is dropped): callers use
 * it where a database that stopped answering must not hold them until the connection gives up.
 */
export function withDeadline<T>(clock: Clock, timeoutMs: number, reason: string, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => reject(new Error(reason)))
    work.then(
      (value) => {
        timer.cancel()
        resolve(value)
      },
      (err) => {
        timer.cancel()
        reject(err)
      },
    )
  })
}
