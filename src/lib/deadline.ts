import type { Clock } from "./clock"

/**
 * Settles like `work`, or rejects with `reason` (a message or the error itself) once `timeoutMs`
 * has passed on `clock`, whichever comes first; `onTimeout` runs just before that rejection (to
 * abort the work, say). The work itself is not cancelled (a late answer is dropped): callers use
 * it where a database that stopped answering must not hold them until the connection gives up.
 */
export function withDeadline<T>(clock: Clock, timeoutMs: number, reason: string | Error, work: Promise<T>, onTimeout?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => {
      onTimeout?.()
      reject(typeof reason === "string" ? new Error(reason) : reason)
    })
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
