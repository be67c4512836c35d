import type { WASocket } from "@whiskeysockets/baileys"
import type { Logger } from "../../lib/logger"
import { boundedOutsideText } from "../../lib/outside-text"
import type { BaileysModule } from "./auth-state"
import { e164FromPnJid, isLidJid, isPnJid, normalizeUserJid, sameUser, type AckNode } from "./mapping"

/*
 * Stale LID mappings (docs/live-whatsapp.md § "Stale LID mappings"). Baileys keeps each
 * number's LID once learned and encrypts 1:1 messages for the Signal session stored under it
 * (lib/Signal/libsignal.js in 7.0.0-rc14 resolves a number's address through that mapping). When
 * the account behind a number changes ("This phone number is connected to a new WhatsApp
 * account"), the server acks our next send with `refresh_lid="true"` and nothing else: it is the
 * only sign the mapping went stale (WhiskeySockets/Baileys PR #2661; oxidezap/whatsapp-rust
 * PR #1313). Baileys 7.0.0-rc14 ignores the attribute and never asks again while its mapping
 * answers, so every later send would go to the old identity.
 *
 * wagate asks WhatsApp again for the number's LID and stores the answer, so Baileys' next send
 * fetches the new account's keys and reaches it. The question is asked by phone number, never by
 * the LID in doubt (whatsapp-rust PR #1313 explains why); a peer named only by a LID whose number
 * wagate does not know cannot be asked about, which is said once at warn.
 */

/** What the refresh needs from Baileys, injected so it is tested without a socket. */
export interface LidDirectory {
  /** The number (PN JID) the local mapping holds for a LID, or null. */
  pnForLid(lidJid: string): Promise<string | null>
  /** The LID the local mapping holds for a number, or null. */
  storedLidFor(pnJid: string): Promise<string | null>
  /** Asks WhatsApp (usync, LID protocol) for the number's current LID; null when it names none. */
  lookUpLid(pnJid: string): Promise<string | null>
  /** Stores the pair, replacing the number's old LID, so Baileys addresses the number by it. */
  storeMapping(lidJid: string, pnJid: string): Promise<void>
}

/** How one refresh ended. */
export type LidRefreshOutcome =
  | { kind: "changed"; phoneNumber: string; from: string | null; to: string }
  | { kind: "unchanged"; phoneNumber: string; lid: string }
  | { kind: "no_number"; lid: string }
  | { kind: "not_found"; phoneNumber: string }
  | { kind: "failed"; peer: string; err: unknown }

/** The peer whose mapping an ack calls stale (`refresh_lid="true"` on a message ack), else null. */
export function refreshLidPeer(node: AckNode): string | null {
  if (node.tag !== "ack" || node.attrs.class !== "message" || node.attrs.refresh_lid !== "true") return null
  const from = node.attrs.from
  return isPnJid(from) || isLidJid(from) ? normalizeUserJid(from) : null
}

/** Looks a stale peer up again, once at a time per peer, and says what happened once. */
export class LidRefresher {
  private readonly inFlight = new Map<string, Promise<LidRefreshOutcome>>()

  constructor(
    private readonly directory: LidDirectory,
    private readonly log: Pick<Logger, "info" | "warn">,
  ) {}

  /** Reads an ack; one that carries `refresh_lid` starts a refresh (its promise, for tests), else null. */
  onAck(node: AckNode): Promise<LidRefreshOutcome> | null {
    const peer = refreshLidPeer(node)
    if (!peer) return null
    const running = this.inFlight.get(peer)
    if (running) return running
    // The ack's id comes from WhatsApp: bounded before it reaches the log.
    const waMessageId = node.attrs.id ? boundedOutsideText(node.attrs.id, 64) : null
    const refresh = this.refresh(peer, waMessageId).finally(() => this.inFlight.delete(peer))
    this.inFlight.set(peer, refresh)
    return refresh
  }

  private async refresh(peer: string, waMessageId: string | null): Promise<LidRefreshOutcome> {
    const outcome = await this.lookUp(peer).catch((err: unknown): LidRefreshOutcome => ({ kind: "failed", peer, err }))
    this.report(outcome, waMessageId)
    return outcome
  }

  private async lookUp(peer: string): Promise<LidRefreshOutcome> {
    const pn = isPnJid(peer) ? peer : await this.directory.pnForLid(peer).then((jid) => (isPnJid(jid) ? normalizeUserJid(jid) : null))
    if (!pn) return { kind: "no_number", lid: peer }
    const phoneNumber = e164FromPnJid(pn)
    const before = await this.directory.storedLidFor(pn).then((jid) => (isLidJid(jid) ? normalizeUserJid(jid) : null))
    const found = await this.directory.lookUpLid(pn)
    if (!isLidJid(found)) return { kind: "not_found", phoneNumber }
    const lid = normalizeUserJid(found)
    if (sameUser(lid, before)) return { kind: "unchanged", phoneNumber, lid }
    await this.directory.storeMapping(lid, pn)
    return { kind: "changed", phoneNumber, from: before, to: lid }
  }

  private report(outcome: LidRefreshOutcome, waMessageId: string | null): void {
    const fields = { ...outcome, waMessageId }
    switch (outcome.kind) {
      case "changed":
        return this.log.warn(
          "WhatsApp said the LID stored for a number was stale (refresh_lid); wagate looked it up again, and the next send goes to the new one. The acked message may not have reached the contact's new account: send it again if it matters",
          fields,
        )
      case "unchanged":
        return this.log.info("WhatsApp said the LID stored for a number was stale (refresh_lid); looked up again, it is unchanged", fields)
      case "no_number":
        return this.log.warn(
          "WhatsApp said a LID is stale (refresh_lid), and wagate knows no number to look it up again by: messages to this LID may not arrive; send to the contact's number, or wait for the contact to write",
          fields,
        )
      case "not_found":
        return this.log.warn("WhatsApp said the LID stored for a number was stale (refresh_lid), and names no LID for it now: the number may have left WhatsApp", fields)
      case "failed":
        return this.log.warn("looking a stale LID up again (refresh_lid) failed; the next send may still go to the old identity", { peer: outcome.peer, err: outcome.err, waMessageId })
    }
  }
}

/** The directory over a live socket: Baileys' LID mapping store and a usync query. */
export function socketLidDirectory(baileys: Pick<BaileysModule, "USyncQuery" | "USyncUser">, sock: Pick<WASocket, "signalRepository" | "executeUSyncQuery">): LidDirectory {
  const mapping = sock.signalRepository.lidMapping
  return {
    pnForLid: (lid) => mapping.getPNForLID(lid),
    storedLidFor: (pn) => mapping.getLIDForPN(pn),
    async lookUpLid(pn) {
      const query = new baileys.USyncQuery().withContext("background").withLIDProtocol().withUser(new baileys.USyncUser().withId(pn))
      const result = await sock.executeUSyncQuery(query)
      const lid = result?.list.find((user) => sameUser(user.id, pn))?.lid
      return typeof lid === "string" ? lid : null
    },
    storeMapping: (lid, pn) => mapping.storeLIDPNMappings([{ lid, pn }]),
  }
}
