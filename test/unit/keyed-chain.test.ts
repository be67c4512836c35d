import { describe, expect, test } from "bun:test"
import { inOrderPerKey } from "../../src/lib/keyed-chain"

/** A task whose end the test decides: it logs its start and its end. */
function controlled(log: string[]) {
  const ends = new Map<string, () => void>()
  const fn = inOrderPerKey(async (key: string, name: string, fail = false) => {
    log.push(`start ${name}`)
    await new Promise<void>((resolve) => ends.set(name, resolve))
    log.push(`end ${name}`)
    if (fail) throw new Error(`${name} failed`)
    return name
  })
  return { fn, end: async (name: string) => (ends.get(name)!(), await Promise.resolve(), await Promise.resolve()) }
}

describe("inOrderPerKey", () => {
  test("a call starts at once when its key has none under way", () => {
    const log: string[] = []
    const { fn } = controlled(log)
    void fn("a", "a1")
    expect(log).toEqual(["start a1"])
  })

  test("calls of one key run one after another in call order; another key's run beside them", async () => {
    const log: string[] = []
    const { fn, end } = controlled(log)
    const a1 = fn("a", "a1")
    const a2 = fn("a", "a2")
    const b1 = fn("b", "b1")
    expect(log).toEqual(["start a1", "start b1"])
    await end("a1")
    await a1
    await new Promise((r) => setImmediate(r))
    expect(log).toEqual(["start a1", "start b1", "end a1", "start a2"])
    await end("a2")
    await end("b1")
    expect([await a2, await b1]).toEqual(["a2", "b1"])
  })

  test("a call that fails rejects its own caller and does not stop the next one of its key", async () => {
    const log: string[] = []
    const { fn, end } = controlled(log)
    const a1 = fn("a", "a1", true)
    const a2 = fn("a", "a2")
    await end("a1")
    await expect(a1).rejects.toThrow("a1 failed")
    await new Promise((r) => setImmediate(r))
    await end("a2")
    expect(await a2).toBe("a2")
    expect(log).toEqual(["start a1", "end a1", "start a2", "end a2"])
  })
})
