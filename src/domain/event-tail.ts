import type { Clock, TimerHandle } from "../lib/clock"
import type { Environment } from "../lib/vocabulary"
import type { LoggedEvent } from "../store/event-streams"
import type { Store } from "../store/store"
import type { EventWake } from "../webhooks/event-wake"

/**
 * The reads of the event log that the open streams of a node share (docs/webhooks.md § "Streams").
 * Each stream keeps its own position and filter, but the streams of an account at the head of
 * its log all ask for the page after the same position when they wake: one query answers them
 * all. A stream that is behind (replaying after a resume) asks for other positions, and reads on
 * its own until it reaches the head, where its reads join the others'.
 *
 * A page is shared only between reads asked for after the same wake-up (one "round" per account
 * and environment, which every ring and every rescan starts): a read from before a commit's ring
 * may lack that commit's events, and a stream rung after it must not be handed it. Within a round
 * a read is shared while it runs; afterwards only a short page is kept (the head, which the
 * streams rung late ask for too), until the next round: full pages are a replay's, asked for once.
 */
export interface EventTail {
  /** Up to `limit` events after `position`: the log's answer, shared with the same read of this round. */
  read(accountId: string, env: Environment, position: string, limit: number): Promise<LoggedEvent[]>
  /**
   * Calls `fn` on every wake-up of this account and environment: a ring (a commit, here or on
   * another node) or the rescan timer, which runs once per account and environment, not per stream.
   */
  listen(accountId: string, env: Environment, fn: () => void): () => void
}

interface Round {
  /** Reads of this round by position: running, or done with a short page. */
  reads: Map<string, Promise<LoggedEvent[]>>
}

interface Tail {
  round: Round
  members: Set<() => void>
  unwake: () => void
  rescan: TimerHandle | null
}

export function createEventTail(deps: { store: Pick<Store, "listEventsAfter">; wake: EventWake; clock: Clock; rescanMs: number }): EventTail {
  const tails = new Map<string, Tail>()

  /** A new round: later reads go to the log again; then every member is woken. */
  function wakeUp(tail: Tail): void {
    tail.round = { reads: new Map() }
    for (const fn of [...tail.members]) fn()
  }

  function armRescan(tail: Tail): void {
    tail.rescan = deps.clock.setTimer(deps.rescanMs, () => {
      if (tail.members.size === 0) return
      armRescan(tail)
      wakeUp(tail)
    })
  }

  function tailOf(accountId: string, env: Environment): Tail {
    const key = `${accountId}|${env}`
    let tail = tails.get(key)
    if (!tail) {
      const created: Tail = { round: { reads: new Map() }, members: new Set(), unwake: () => {}, rescan: null }
      created.unwake = deps.wake.listen(accountId, env, () => wakeUp(created))
      armRescan(created)
      tails.set(key, (tail = created))
    }
    return tail
  }

  return {
    read(accountId, env, position, limit) {
      const tail = tails.get(`${accountId}|${env}`)
      if (!tail) return deps.store.listEventsAfter(accountId, env, position, limit)
      const { round } = tail
      const key = `${position}|${limit}`
      const shared = round.reads.get(key)
      if (shared) return shared
      const read = deps.store.listEventsAfter(accountId, env, position, limit)
      round.reads.set(key, read)
      read.then(
        (page) => {
          if (page.length === limit) round.reads.delete(key)
        },
        () => round.reads.delete(key),
      )
      return read
    },
    listen(accountId, env, fn) {
      const tail = tailOf(accountId, env)
      tail.members.add(fn)
      return () => {
        tail.members.delete(fn)
        if (tail.members.size > 0) return
        tail.unwake()
        tail.rescan?.cancel()
        if (tails.get(`${accountId}|${env}`) === tail) tails.delete(`${accountId}|${env}`)
      }
    },
  }
}
