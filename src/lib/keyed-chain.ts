/**
 * `fn` with its calls for one key (the first argument) run one after another, in the order they
 * were made, while calls for different keys run freely. A call starts at once when its key has
 * none under way, so a read right after it sees what a synchronous start would show. A call that
 * fails does not stop the next one of its key; its own caller gets the failure.
 */
export function inOrderPerKey<A extends [string, ...unknown[]], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>()
  return (...args: A) => {
    const key = args[0]
    const before = tails.get(key)
    const result = before ? before.catch(() => undefined).then(() => fn(...args)) : fn(...args)
    tails.set(key, result)
    const forget = () => void (tails.get(key) === result && tails.delete(key))
    result.then(forget, forget)
    return result
  }
}
