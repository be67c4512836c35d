import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { pollOf, voteMessage } from "../wa-sim/polls"
import { CLUSTER_TEST_TIMEOUT_MS, ClusterWorld, poll, type NodeId } from "./cluster-world"

/*
 * Issue 29, "no vote is lost … not on another node", on real processes: a poll goes out from the
 * node holding the phone, that node is killed with SIGKILL, and the contact votes once another
 * node holds the phone. The new holder never saw the poll: it decrypts the vote with the secret
 * the first node stored in the shared database (docs/live-whatsapp.md § "Poll votes").
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let world: ClusterWorld | undefined
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  await world?.dispose()
  world = undefined
}, SLOW_HOOK_TIMEOUT_MS)

test(
  "a vote on a poll sent from a node killed since is decrypted by the node that took the phone over, with the secret from the database",
  async () => {
    world = await ClusterWorld.start({ phones: 1 })
    const w = world
    const phone = w.phones[0]!
    const holderId = (await w.holdings()).get(phone.id)!.nodeId as NodeId
    const holder = w.nodes.find((n) => n.nodeId === holderId)!
    const res = await fetch(`${holder.base}/v1/messages/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.liveKey}`, "content-type": "application/json" },
      body: JSON.stringify({ fromPhoneId: phone.phoneNumber, to: `+${w.contact.phoneNumber}`, poll: { question: "Failover?", options: ["Yes", "No"] } }),
    })
    expect(res.status).toBe(201)
    const messageId = ((await res.json()) as { data: { id: string } }).data.id
    const out = await w.sim.nextMessage(w.contact, { timeoutMs: 20_000 })
    w.sim.ack(out.id)
    const { secret } = pollOf(out.message)

    await holder.kill()
    await w.waitAllConnected({ timeoutMs: 60_000, notOn: [holderId] })
    // The vote must reach the new holder's socket: wait until the killed node's socket is gone from the simulator too.
    await poll(() => (w.sim.loggedInConnections(phone.phoneNumber).length === 1 ? true : undefined), "one socket of the phone on the simulator", 30_000)
    const me = `${phone.phoneNumber.replace(/^\+/, "")}@s.whatsapp.net`
    const vote = voteMessage({ pollKey: { remoteJid: me, id: out.id, fromMe: false }, secret, creatorJid: me, voterJid: w.contact.pnJid, chosen: ["No"], senderTimestampMs: Date.now() })
    await w.sim.sendInbound(w.contact, { message: vote })
    const hook = await poll(
      async () => w.hooks.received.find((r) => r.json?.event === "poll.vote" && r.json.data?.messageId === messageId),
      "the poll.vote webhook from the node that took the phone over",
      60_000,
      250,
    ).catch((err) => {
      throw new Error(`${String(err)}\n${w.logTails()}`)
    })
    expect(hook.json.data).toMatchObject({ messageId, voter: `+${w.contact.phoneNumber}`, options: ["No"] })
  },
  CLUSTER_TEST_TIMEOUT_MS,
)
