import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const OUTPUT_MODULE = join(import.meta.dir, "..", "..", "src", "cli", "output.ts")

/** Runs `writeAll(1, text)` of `bytes` bytes in a child, then prints "done" on stderr. */
function writer(bytes: number) {
  const script = `import { writeAll } from ${JSON.stringify(OUTPUT_MODULE)}; writeAll(1, "x".repeat(${bytes})); process.stderr.write("done")`
  return Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" })
}

describe("writeAll (the CLI's stdout and stderr)", () => {
  test("writes all of a text larger than a pipe's buffer to a slow reader", async () => {
    const child = writer(1_000_000)
    let received = 0
    for await (const chunk of child.stdout) {
      received += chunk.length
      await Bun.sleep(1)
    }
    expect(await child.exited).toBe(0)
    expect(received).toBe(1_000_000)
    expect(await new Response(child.stderr).text()).toBe("done")
  })

  test("ends quietly when the reader goes away (`wagate help | head -1`)", async () => {
    const child = writer(1_000_000)
    const reader = child.stdout.getReader()
    await reader.read()
    await reader.cancel()
    expect(await child.exited).toBe(0)
    expect(await new Response(child.stderr).text()).toBe("done")
  })
})
