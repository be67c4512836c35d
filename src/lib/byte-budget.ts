/** Gives the reserved bytes back; calling it more than once gives them back once. */
export type ReleaseBytes = () => void

/**
 * A process-wide budget of bytes, shared first come, first served: `acquire(n)` resolves once
 * `n` bytes fit beside what others hold. A request larger than the whole budget waits until it
 * runs alone, so it is never refused and never starves the queue behind it.
 */
export interface ByteBudget {
  acquire(bytes: number): Promise<ReleaseBytes>
  readonly inUseBytes: number
  readonly waiting: number
  readonly limitBytes: number
}

export function createByteBudget(limitBytes: number): ByteBudget {
  if (!Number.isInteger(limitBytes) || limitBytes < 1) throw new Error(`a byte budget needs a positive integer limit, got ${limitBytes}`)
  let inUseBytes = 0
  const queue: { bytes: number; grant: (release: ReleaseBytes) => void }[] = []

  function fits(bytes: number): boolean {
    return inUseBytes === 0 || inUseBytes + Math.min(bytes, limitBytes) <= limitBytes
  }

  function take(bytes: number): ReleaseBytes {
    const held = Math.min(bytes, limitBytes)
    inUseBytes += held
    let released = false
    return () => {
      if (released) return
      released = true
      inUseBytes -= held
      // Strict order: the head of the queue goes first, so a large request is not overtaken forever.
      while (queue.length > 0 && fits(queue[0]!.bytes)) {
        const next = queue.shift()!
        next.grant(take(next.bytes))
      }
    }
  }

  return {
    acquire(bytes) {
      const wanted = Math.max(0, Math.ceil(bytes))
      if (queue.length === 0 && fits(wanted)) return Promise.resolve(take(wanted))
      return new Promise((resolve) => queue.push({ bytes: wanted, grant: resolve }))
    },
    get inUseBytes() {
      return inUseBytes
    },
    get waiting() {
      return queue.length
    },
    limitBytes,
  }
}
