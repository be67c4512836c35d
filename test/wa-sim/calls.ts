import { randomBytes } from "node:crypto"
import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimConnection } from "./connection"
import type { SimContact } from "./contact"
import type { SimGroup } from "./groups"
import { unixSeconds } from "./nodes"

/*
 * Incoming calls, as WhatsApp's server hands them to a linked device (test/wa-sim/README.md §
 * "Calls"). Every step is one `<call from=<caller> id t>` stanza with one child, named by its
 * tag: `offer` (with `<audio>` and, for a video call, `<video>`; a group call says
 * `type="group"` and `group-jid`), `accept` and `reject` when a device of the called account took
 * or declined it, `terminate` when the caller hung up (`reason="timeout"` when nobody answered).
 * The child names the call by `call-id` and `call-creator`, and a LID-addressed caller's number
 * as `caller_pn` (whatsmeow call.go reads the same attributes; Baileys 7.0.0-rc14 handleCall in
 * lib/Socket/messages-recv.js). A device declines with `<call to=<caller>><reject call-id
 * call-creator count="0"/></call>` (Baileys' rejectCall, whatsmeow's RejectCall) and the server
 * acks it with `<ack class="call" type="reject">` carrying the stanza's id, which Baileys waits for.
 */

export interface CallOptions {
  video?: boolean
  /** A group call: the offer names the group. */
  group?: SimGroup
  /** How the caller is addressed: its number, or its LID with its number as `caller_pn` (the contact's own addressing by default). */
  addressing?: "pn" | "lid"
  /** The called account's number when several are connected. */
  to?: string
}

/** A reject a device sent, as the server read it. */
export interface CallReject {
  connectionId: number
  callId: string
  callCreator: string
  to: string
}

interface SimCall {
  callId: string
  caller: SimContact
  creator: string
  callerPn: string | null
  to?: string
}

/** What the calls need of the simulator: the logged-in connections of the called account, and the clock. */
export interface CallWorld {
  connectionsOf(to: string | undefined): SimConnection[]
  nowMs(): number
}

export class SimCalls {
  /** Rejects devices sent, oldest first. */
  readonly rejects: CallReject[] = []
  private readonly calls = new Map<string, SimCall>()

  constructor(private readonly world: CallWorld) {}

  /** A contact calls the account (voice unless `video`); returns the call id. */
  offer(caller: SimContact, options: CallOptions = {}): string {
    const callId = randomBytes(16).toString("hex").toUpperCase()
    const lid = (options.addressing ?? caller.addressing) === "lid"
    const creator = lid ? `${caller.lid}:0@lid` : `${caller.phoneNumber}:0@s.whatsapp.net`
    const call: SimCall = { callId, caller, creator, callerPn: lid && !caller.noNumber ? caller.pnJid : null, to: options.to }
    this.calls.set(callId, call)
    const media: BinaryNode[] = [{ tag: "audio", attrs: { enc: "opus", rate: "16000" } }]
    if (options.video) media.push({ tag: "video", attrs: { enc: "vp8", dec: "vp8" } })
    const attrs = this.callAttrs(call)
    if (call.callerPn) attrs.caller_pn = call.callerPn
    if (options.group) Object.assign(attrs, { type: "group", "group-jid": options.group.jid })
    this.send(call, { tag: "offer", attrs, content: media })
    return callId
  }

  /** The caller hangs up before anyone answered. */
  cancel(callId: string): void {
    this.send(this.callOf(callId), { tag: "terminate", attrs: this.callAttrs(this.callOf(callId)) })
  }

  /** Nobody answered in time. */
  timeout(callId: string): void {
    this.send(this.callOf(callId), { tag: "terminate", attrs: { ...this.callAttrs(this.callOf(callId)), reason: "timeout" } })
  }

  /** The phone (another device of the account) answered; the call later ends with a terminate. */
  acceptElsewhere(callId: string): void {
    this.send(this.callOf(callId), { tag: "accept", attrs: this.callAttrs(this.callOf(callId)) })
  }

  /** The call that was answered ends (either side hung up). */
  hangUp(callId: string): void {
    this.cancel(callId)
  }

  /** A client's `<call>`: a reject is recorded and acked as the server does; anything else is only kept in `clientStanzas`. */
  onClientCall(connection: SimConnection, node: BinaryNode): void {
    const child = Array.isArray(node.content) ? (node.content[0] as BinaryNode | undefined) : undefined
    if (child?.tag !== "reject") return
    this.rejects.push({ connectionId: connection.id, callId: child.attrs["call-id"] ?? "", callCreator: child.attrs["call-creator"] ?? "", to: node.attrs.to ?? "" })
    connection.send({ tag: "ack", attrs: { class: "call", type: "reject", id: node.attrs.id ?? "", from: node.attrs.to ?? "" } })
  }

  private callOf(callId: string): SimCall {
    const call = this.calls.get(callId)
    if (!call) throw new Error(`no call ${callId}`)
    return call
  }

  private callAttrs(call: SimCall): Record<string, string> {
    return { "call-id": call.callId, "call-creator": call.creator }
  }

  private send(call: SimCall, child: BinaryNode): void {
    const connections = this.world.connectionsOf(call.to)
    if (connections.length === 0) throw new Error("no device of the called account is connected")
    const from = call.creator.replace(":0@", "@")
    for (const connection of connections) {
      connection.send({ tag: "call", attrs: { from, id: randomBytes(8).toString("hex").toUpperCase(), t: unixSeconds(this.world.nowMs()) }, content: [child] })
    }
  }
}
