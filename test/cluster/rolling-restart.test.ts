import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { CLUSTER_TEST_TIMEOUT_MS, ClusterWorld, type AcceptedSend, type ClusterNode } from "./cluster-world"

/*
 * Issue 21's rolling restart on real processes (docs/operations.md § "Running several nodes",
 * upgrades): each of three nodes is stopped with SIGTERM and started again in turn while sends
 * flow through the others; nothing is lost.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/** Gap between two sends of the load: a steady trickle, not a benchmark. */
const SEND_GAP_MS = 150

let world: ClusterWorld | undefined
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await world?.dispose()
  world = undefined
}, SLOW_HOOK_TIMEOUT_MS)

test(
  "a rolling restart of all three nodes under a flow of sends: every accepted send reaches the contact, once, under its one WhatsApp id",
  async () => {
    world = await ClusterWorld.start()
    const w = world
    const accepted: AcceptedSend[] = []
    let restarting: ClusterNode | null = null
    let flowing = true
    const flow = (async () => {
      for (let i = 0; flowing; i++) {
        // Through a node that is not being restarted, from every phone in turn.
        const via = w.nodes.filter((n) => n !== restarting)[i % 2]!
        const sent = await w.send(via, w.phones[i % w.phones.length]!)
        if (sent) accepted.push(sent)
        await Bun.sleep(SEND_GAP_MS)
      }
    })()

    for (const node of w.nodes) {
      const before = accepted.length
      restarting = node
      expect(await node.terminate()).toBe(0)
      await node.spawn()
      restarting = null
      await w.waitAllConnected({ timeoutMs: 60_000 })
      // Sends were accepted while this node went and came back.
      expect(accepted.length).toBeGreaterThan(before)
    }
    flowing = false
    await flow
    await w.waitArrived(accepted, 60_000)
    const idsPerText = w.idsPerText()
    let repeated = 0
    for (const send of accepted) {
      expect([...(idsPerText.get(send.content) ?? [])]).toEqual([send.waId])
      if (w.sim.timesReached(send.waId) > 1) repeated++
    }
    // A stopping node closes its sockets first; a message handed over whose acknowledgement it
    // had not recorded yet goes again with the same id (shown once), at most one per phone.
    expect(repeated).toBeLessThanOrEqual(w.phones.length)
  },
  CLUSTER_TEST_TIMEOUT_MS,
)
