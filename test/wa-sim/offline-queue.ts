import { getBinaryNodeChild, S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimConnection } from "./connection"
import { QUEUED_OFFLINE_VALUE } from "./receiving-stalls"

/**
 * The server's offline queue: while a companion device is away (registered, no connection),
 * messages, receipts and notifications for it are held, and on its next login they arrive in one
 * burst, each marked `offline`, followed by the `<ib><offline count/></ib>` marker that says the
 * queue is empty. Sources (test/wa-sim/README.md § "Offline queue"): Baileys 7.0.0-rc14
 * lib/Socket/socket.js (`CB:ib,,offline_preview` answered with `<offline_batch count="100"/>`,
 * `CB:ib,,offline` flushes the events buffered since login) and lib/Socket/messages-recv.js
 * (stanzas with an `offline` attribute go through its offline node processor and become
 * `append` upserts); whatsmeow's `handleIB` (connectionevents.go: `offline_preview` with
 * `count`, `message`, `notification`, `receipt`, `appdata`; `offline` with `count`).
 */
export class OfflineQueue {
  private readonly held = new Map<string, BinaryNode[]>()

  /** Keeps a stanza for a device that is away. */
  hold(account: SimAccount, deviceId: number, node: BinaryNode): void {
    const key = queueKey(account, deviceId)
    const nodes = this.held.get(key) ?? []
    nodes.push(node)
    this.held.set(key, nodes)
  }

  /** How many stanzas wait for a device. */
  count(account: SimAccount, deviceId: number): number {
    return this.held.get(queueKey(account, deviceId))?.length ?? 0
  }

  /** Removes and returns what waits for a device, oldest first. */
  take(account: SimAccount, deviceId: number): BinaryNode[] {
    const key = queueKey(account, deviceId)
    const nodes = this.held.get(key) ?? []
    this.held.delete(key)
    return nodes
  }
}

function queueKey(account: SimAccount, deviceId: number): string {
  return `${account.phoneNumber}:${deviceId}`
}

/** `<ib><offline_preview count message receipt notification appdata/></ib>`: what the queue holds, by kind. */
export function offlinePreviewNode(nodes: readonly BinaryNode[]): BinaryNode {
  const of = (tag: string) => String(nodes.filter((node) => node.tag === tag).length)
  return {
    tag: "ib",
    attrs: { from: S_WHATSAPP_NET },
    content: [
      {
        tag: "offline_preview",
        attrs: { count: String(nodes.length), message: of("message"), receipt: of("receipt"), notification: of("notification"), appdata: "0" },
      },
    ],
  }
}

/** The batch size a client asked for in `<ib><offline_batch count/></ib>`, or undefined for any other stanza. */
export function offlineBatchCount(node: BinaryNode): number | undefined {
  if (node.tag !== "ib") return undefined
  const batch = getBinaryNodeChild(node, "offline_batch")
  return batch ? Number(batch.attrs.count ?? 0) : undefined
}

/** `<ib><offline count/></ib>`: the burst is over. */
export function offlineMarkerNode(count: number): BinaryNode {
  return { tag: "ib", attrs: { from: S_WHATSAPP_NET }, content: [{ tag: "offline", attrs: { count: String(count) } }] }
}

/**
 * Delivers what a device missed: the preview, then (once the client asked for a batch, as
 * Baileys does at once) every held stanza marked `offline` in the order it was held, then
 * the marker (none when `marker` is false: receiving-stalls.ts). The batch size the client asks
 * for is not modelled: everything follows the first request. Resolves with the number of stanzas
 * delivered.
 */
export async function deliverOfflineBurst(connection: SimConnection, nodes: readonly BinaryNode[], batchRequested: () => Promise<unknown>, marker = true): Promise<number> {
  connection.send(offlinePreviewNode(nodes))
  await batchRequested()
  for (const node of nodes) connection.send({ ...node, attrs: { ...node.attrs, offline: QUEUED_OFFLINE_VALUE } })
  if (marker) connection.send(offlineMarkerNode(nodes.length))
  return nodes.length
}
