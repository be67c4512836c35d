import type { BinaryNode } from "@whiskeysockets/baileys"

/*
 * Two ways real WhatsApp stalls a companion's receiving, reported in WhiskeySockets/Baileys#2810
 * (test/wa-sim/README.md § "Receiving stalls"), each behind a switch that is off by default:
 *
 * - `offlineMarker: false`: after login the server never sends `<ib><offline count/></ib>`, the
 *   marker that the offline queue is drained. Baileys holds every event it buffered since login
 *   until that marker (lib/Socket/socket.js, `CB:ib,,offline`), or until its own 30 s timeout
 *   (lib/Utils/event-buffer.js in 7.0.0-rc14).
 * - `liveOfflineZero: true`: live stanzas carry `offline="0"`. Unpatched Baileys reads any value
 *   as "offline" (`!!node.attrs.offline` in lib/Socket/messages-recv.js), so a live message goes
 *   through its offline node processor, which never flushes the buffer, and is upserted as
 *   `append`.
 */

/** The value the offline queue marks its stanzas with: any but "0", which WhiskeySockets/Baileys#2810 reports on live stanzas. */
export const QUEUED_OFFLINE_VALUE = "1"

/** A stanza as the server sends it to a connected device: marked `offline="0"` under `liveOfflineZero`. */
export function liveStanza(node: BinaryNode, liveOfflineZero: boolean): BinaryNode {
  return liveOfflineZero ? { ...node, attrs: { ...node.attrs, offline: "0" } } : node
}
