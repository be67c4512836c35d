import { readFileSync, writeFileSync } from "node:fs"
import type { PresenceState } from "../../src/lib/vocabulary"
import type { ConnectionFailure, ConnectionFailureCode } from "../../src/whatsapp/failures"
import type {
  CallSignal,
  DisconnectReason,
  GroupInfo,
  GroupNotice,
  InboundAction,
  InboundMessage,
  OutboundPart,
  PartRejection,
  PollVoteSeen,
  SessionEvents,
  WaMessageRef,
  WhatsAppGateway,
  WhatsAppSession,
} from "../../src/whatsapp/gateway"
import type { EchoMessage, HistoryChunk } from "../../src/whatsapp/gateway"
import { MediaGoneError, MediaTooLargeError, type ChatModification, type WhatsAppGroups } from "../../src/whatsapp/gateway"
import { FakeGroupWorld, fakeGroups } from "./fake-groups"
import { FakeContacts } from "./fake-contacts"

/**
 * A part as the fake saw it: the media's file is read when it is handed over (wagate removes it
 * after the send), so a test compares the bytes WhatsApp would have received.
 */
export interface SentPart extends Omit<OutboundPart, "media"> {
  media?: Omit<NonNullable<OutboundPart["media"]>, "path" | "sizeBytes"> & { bytes: Uint8Array }
}

function snapshot(part: OutboundPart): SentPart {
  if (part.media === undefined) return { ...part, media: undefined }
  const { path, sizeBytes: _size, ...media } = part.media
  return { ...part, media: { ...media, bytes: new Uint8Array(readFileSync(path)) } }
}

/** A reaction, edit, revoke or batch of read receipts as the fake saw it. */
export type FakeAction =
  | { phoneId: string; kind: "react"; target: WaMessageRef; emoji: string }
  | { phoneId: string; kind: "edit"; target: WaMessageRef; text: string }
  | { phoneId: string; kind: "revoke"; target: WaMessageRef }
  | { phoneId: string; kind: "read"; targets: WaMessageRef[] }
  | { phoneId: string; kind: "vote"; target: WaMessageRef; optionHashes: string[] }

/** A change to our own profile or a group's picture: `groupJid` null is this phone's own picture. */
export type FakeProfileAction =
  | { phoneId: string; kind: "set_picture"; groupJid: string | null; jpeg: Uint8Array }
  | { phoneId: string; kind: "remove_picture"; groupJid: string | null }
  | { phoneId: string; kind: "profile_name"; name: string }
  | { phoneId: string; kind: "about"; about: string }

/**
 * A WhatsApp stand-in at the gateway boundary (the PocketBase TestMailer pattern): it records
 * what wagate asks of WhatsApp and lets a test play WhatsApp's side, event by event.
 */
export class FakeGateway implements WhatsAppGateway {
  /** Phones with stored credentials. */
  readonly credentials = new Set<string>()
  /** Every session created, per phone, newest last. */
  readonly sessions = new Map<string, FakeSession[]>()
  /** Numbers that are on WhatsApp map to their JID; any number not listed is on WhatsApp as `<digits>@s.whatsapp.net`. */
  readonly numbers = new Map<string, string | null>()
  /** Every number check asked of WhatsApp, one list per request; `numbersError` makes the next ones fail. */
  readonly numberChecks: string[][] = []
  numbersError: Error | null = null
  /** Groups per phone; `groupFetchError` makes the next fetches fail. */
  readonly groups = new Map<string, GroupInfo[]>()
  groupFetchError: Error | null = null
  /** Every presence shown, across sessions, in order. */
  readonly presences: { phoneId: string; toJid: string; state: PresenceState }[] = []
  /** Calls the sessions rejected, in order. */
  readonly callRejects: { phoneId: string; callId: string; callerJid: string }[] = []
  /** Every part handed to WhatsApp, across sessions, in order. */
  readonly sent: { phoneId: string; part: SentPart }[] = []
  /** Every reaction, edit, revoke and read receipt sent, across sessions, in order; `actionError` makes the next ones fail. */
  readonly actions: FakeAction[] = []
  /** Profile and picture changes, in order; they fail with `actionError` like the actions. */
  readonly profileActions: FakeProfileAction[] = []
  actionError: Error | null = null
  /** Inbound media by descriptor: its bytes, or "gone" when WhatsApp's host no longer has it. */
  readonly media = new Map<string, Uint8Array | "gone">()
  /** What a re-upload of a descriptor gives: the new descriptor, or "refuse". */
  readonly reuploads = new Map<string, string | "refuse">()
  /** Every download and re-upload asked, in order. */
  readonly mediaCalls: { op: "download" | "reupload"; descriptor: string }[] = []
  /** When set, downloads wait for it (two requests meet while one is in progress). */
  mediaGate: Promise<void> | null = null
  /** WhatsApp's side of group requests (create, detail, settings, participants, invites). */
  readonly groupWorld = new FakeGroupWorld()
  /** Block lists and profiles (fake-contacts.ts). */
  readonly contacts = new FakeContacts()

  session(phoneId: string, events: SessionEvents): WhatsAppSession {
    const session = new FakeSession(this, phoneId, events, this.credentials.has(phoneId))
    this.sessions.set(phoneId, [...(this.sessions.get(phoneId) ?? []), session])
    return session
  }

  async hasCredentials(phoneId: string): Promise<boolean> {
    return this.credentials.has(phoneId)
  }

  wipeCredentials(phoneId: string): void {
    this.credentials.delete(phoneId)
  }

  /** The phone's newest session. */
  current(phoneId: string): FakeSession {
    const list = this.sessions.get(phoneId)
    if (!list?.length) throw new Error(`no session was opened for ${phoneId}`)
    return list.at(-1)!
  }

  /** Parts sent by a phone. */
  sentBy(phoneId: string): SentPart[] {
    return this.sent.filter((s) => s.phoneId === phoneId).map((s) => s.part)
  }
}

/** The failure code a real adapter names for each reason when the error says nothing finer. */
const FAILURE_OF_REASON: Record<DisconnectReason, ConnectionFailureCode | null> = {
  logged_out: "logged_out",
  replaced: "replaced",
  forbidden: "forbidden",
  outdated_version: "outdated_version",
  multidevice_mismatch: "multidevice_mismatch",
  restart_required: null,
  pairing_expired: "pairing_expired",
  passkey_required: "passkey_required",
  connection_lost: "connection_lost",
  bad_session: "stream_error",
  closed_by_us: null,
}

/** The reasons a real adapter decides are final (reconnecting cannot help). */
const FINAL_REASONS: ReadonlySet<DisconnectReason> = new Set([
  "logged_out",
  "replaced",
  "forbidden",
  "outdated_version",
  "multidevice_mismatch",
  "pairing_expired",
  "passkey_required",
  "closed_by_us",
])

/** One fake socket; the test drives its events. */
export class FakeSession implements WhatsAppSession {
  readonly connects: ({ method: "qr" } | { method: "code"; phoneNumber: string } | undefined)[] = []
  connected = false
  closed = false
  loggedOut = false
  /** When set, sendPart rejects with it (a socket that dies mid-send). */
  sendError: Error | null = null
  /** When set, sendPart waits for it before it records the part (an upload in progress). */
  sendGate: Promise<void> | null = null
  readonly groups: WhatsAppGroups

  constructor(
    private readonly gateway: FakeGateway,
    readonly phoneId: string,
    readonly events: SessionEvents,
    readonly paired: boolean,
  ) {
    this.groups = fakeGroups(gateway.groupWorld, phoneId, () => this.connected)
    const contacts = gateway.contacts.sessionPart(phoneId, () => this.connected)
    this.fetchBlocklist = contacts.fetchBlocklist
    this.setBlocked = contacts.setBlocked
    this.fetchAbout = contacts.fetchAbout
    this.fetchBusinessProfile = contacts.fetchBusinessProfile
    this.pictureOf = contacts.pictureOf
    this.downloadPicture = contacts.downloadPicture
  }

  // Blocks and profiles, played by gateway.contacts (fake-contacts.ts).
  readonly fetchBlocklist: WhatsAppSession["fetchBlocklist"]
  readonly setBlocked: WhatsAppSession["setBlocked"]
  readonly fetchAbout: WhatsAppSession["fetchAbout"]
  readonly fetchBusinessProfile: WhatsAppSession["fetchBusinessProfile"]
  readonly pictureOf: WhatsAppSession["pictureOf"]
  readonly downloadPicture: WhatsAppSession["downloadPicture"]

  /** The chat changes written to app state, in order. */
  readonly chatModifications: { chatJid: string; change: ChatModification; last: { ref: WaMessageRef; atMs: number } | null }[] = []
  /** When set, modifyChat rejects with it (WhatsApp refused the patch, or the app-state keys are missing). */
  modifyChatError: Error | null = null

  async modifyChat(chatJid: string, change: ChatModification, last: { ref: WaMessageRef; atMs: number } | null): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    if (this.modifyChatError) throw this.modifyChatError
    this.chatModifications.push({ chatJid, change, last })
  }

  /** Whether the fake phone runs the WhatsApp Business app (labels need it). Default false, as for an ordinary phone. */
  business = false
  /** The label edits and chat labels written to app state, in order. */
  readonly labelWrites: ({ kind: "label"; labelId: string; name: string; color: number } | { kind: "chat"; chatJid: string; labelId: string; labeled: boolean })[] = []
  /** When set, label writes reject with it (WhatsApp refused the patch). */
  labelWriteError: Error | null = null

  async isBusinessAccount(): Promise<boolean> {
    if (!this.connected) throw new Error("not connected")
    return this.business
  }

  async writeLabel(label: { labelId: string; name: string; color: number }): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    if (this.labelWriteError) throw this.labelWriteError
    this.labelWrites.push({ kind: "label", ...label })
  }

  async labelChat(chatJid: string, labelId: string, labeled: boolean): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    if (this.labelWriteError) throw this.labelWriteError
    this.labelWrites.push({ kind: "chat", chatJid, labelId, labeled })
  }

  connect(pairing?: { method: "qr" } | { method: "code"; phoneNumber: string }): void {
    this.connects.push(pairing)
  }

  async close(): Promise<void> {
    this.closed = true
    this.connected = false
    this.events.disconnected({ reason: "closed_by_us", final: true, failure: null })
  }

  async logout(): Promise<void> {
    this.loggedOut = true
    this.connected = false
    this.gateway.credentials.delete(this.phoneId)
  }

  async sendPart(part: OutboundPart): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    if (this.sendError) throw this.sendError
    const sent = snapshot(part)
    if (this.sendGate) await this.sendGate
    this.gateway.sent.push({ phoneId: this.phoneId, part: sent })
  }

  async checkNumbers(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    if (!this.connected) throw new Error("not connected")
    if (this.gateway.numbersError) throw this.gateway.numbersError
    this.gateway.numberChecks.push([...phoneNumbers])
    return new Map(phoneNumbers.map((n) => [n, this.gateway.numbers.has(n) ? this.gateway.numbers.get(n)! : `${n.slice(1)}@s.whatsapp.net`]))
  }

  async sendPresence(toJid: string, state: PresenceState): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    this.gateway.presences.push({ phoneId: this.phoneId, toJid, state })
  }

  async rejectCall(callId: string, callerJid: string): Promise<void> {
    if (!this.connected) throw new Error("not connected")
    if (this.gateway.actionError) throw this.gateway.actionError
    this.gateway.callRejects.push({ phoneId: this.phoneId, callId, callerJid })
  }

  async react(target: WaMessageRef, emoji: string): Promise<void> {
    this.recordAction({ phoneId: this.phoneId, kind: "react", target, emoji })
  }

  async editText(target: WaMessageRef, text: string): Promise<void> {
    this.recordAction({ phoneId: this.phoneId, kind: "edit", target, text })
  }

  async revoke(target: WaMessageRef): Promise<void> {
    this.recordAction({ phoneId: this.phoneId, kind: "revoke", target })
  }

  async markRead(targets: WaMessageRef[]): Promise<void> {
    this.recordAction({ phoneId: this.phoneId, kind: "read", targets })
  }

  async votePoll(target: WaMessageRef, optionHashes: string[]): Promise<void> {
    this.recordAction({ phoneId: this.phoneId, kind: "vote", target, optionHashes })
  }

  async setPicture(groupJid: string | null, jpeg: Uint8Array): Promise<void> {
    this.recordProfileAction({ phoneId: this.phoneId, kind: "set_picture", groupJid, jpeg })
  }

  async removePicture(groupJid: string | null): Promise<void> {
    this.recordProfileAction({ phoneId: this.phoneId, kind: "remove_picture", groupJid })
  }

  async setProfileName(name: string): Promise<void> {
    this.recordProfileAction({ phoneId: this.phoneId, kind: "profile_name", name })
  }

  async setAbout(about: string): Promise<void> {
    this.recordProfileAction({ phoneId: this.phoneId, kind: "about", about })
  }

  private recordProfileAction(action: FakeProfileAction): void {
    if (!this.connected) throw new Error("not connected")
    if (this.gateway.actionError) throw this.gateway.actionError
    this.gateway.profileActions.push(action)
  }

  private recordAction(action: FakeAction): void {
    if (!this.connected) throw new Error("not connected")
    if (this.gateway.actionError) throw this.gateway.actionError
    this.gateway.actions.push(action)
  }

  async downloadMedia(descriptor: string, path: string, maxBytes: number): Promise<number> {
    if (!this.connected) throw new Error("not connected")
    this.gateway.mediaCalls.push({ op: "download", descriptor })
    if (this.gateway.mediaGate) await this.gateway.mediaGate
    const bytes = this.gateway.media.get(descriptor)
    if (bytes === undefined || bytes === "gone") throw new MediaGoneError(bytes === "gone" ? 410 : 404)
    if (bytes.length > maxBytes) throw new MediaTooLargeError(maxBytes)
    writeFileSync(path, bytes, { mode: 0o600, flag: "wx" })
    return bytes.length
  }

  async reuploadMedia(descriptor: string): Promise<string> {
    if (!this.connected) throw new Error("not connected")
    this.gateway.mediaCalls.push({ op: "reupload", descriptor })
    const next = this.gateway.reuploads.get(descriptor)
    if (next === undefined || next === "refuse") throw new MediaGoneError(null)
    return next
  }

  async fetchGroups(): Promise<GroupInfo[]> {
    if (this.gateway.groupFetchError) throw this.gateway.groupFetchError
    return this.gateway.groups.get(this.phoneId) ?? []
  }

  // What WhatsApp does, played by the test.

  showQr(qr = "2@fake-ref,fake-noise,fake-identity,fake-adv,1"): void {
    this.events.qr(qr)
  }

  showPairingCode(code = "ABCD1234"): void {
    this.events.pairingCode(code)
  }

  /** WhatsApp accepted the scan or the typed code; a fresh socket's login follows. */
  scan(): void {
    this.events.scanned()
  }

  /** The phone scanned or typed the code (or stored credentials logged in): the socket is open. */
  open(phoneNumber: string): void {
    this.gateway.credentials.add(this.phoneId)
    this.connected = true
    this.events.connected({ phoneNumber })
  }

  /** WhatsApp's version this fake socket announces. */
  announce(waVersion = "2.3000.1"): void {
    this.events.connecting({ waVersion })
  }

  /** WhatsApp announces when it stops accepting `waVersion` (`<ib><client_expiration>`). */
  expires(expiresAtMs: number, waVersion = "2.3000.1"): void {
    this.events.clientExpiration?.({ expiresAtMs, waVersion })
  }

  /**
   * The socket ends for `reason`; the failure is the one a real adapter would name for it, or
   * `failure` (a code, or the whole failure) when the test says what went wrong.
   */
  drop(reason: DisconnectReason, failure?: ConnectionFailureCode | Partial<ConnectionFailure>): void {
    this.connected = false
    const given = typeof failure === "string" ? { code: failure } : failure
    const code = given?.code ?? FAILURE_OF_REASON[reason]
    this.events.disconnected({
      reason,
      final: FINAL_REASONS.has(reason),
      failure: code ? { cause: `fake ${reason}`, host: "web.whatsapp.com", httpStatus: null, waVersion: "2.3000.1", ...given, code } : null,
    })
  }

  ack(waMessageId: string, atMs: number): void {
    this.events.partAcked(waMessageId, atMs)
  }

  reject(waMessageId: string, rejection: PartRejection, atMs: number): void {
    this.events.partRejected(waMessageId, rejection, atMs)
  }

  receipt(waMessageId: string, kind: "delivered" | "read", atMs: number): void {
    this.events.receipt(waMessageId, kind, atMs)
  }

  receive(message: InboundMessage): void {
    this.events.inbound(message)
  }

  /** The phone (or another linked device) sent a message itself. */
  echo(message: EchoMessage): void {
    this.events.echo?.(message)
  }

  /** A history chunk the adapter read; resolves once the listener stored it. */
  history(chunk: HistoryChunk): Promise<void> {
    return this.events.historyChunk?.(chunk) ?? Promise.resolve()
  }

  /** A contact reacted to, edited or deleted an earlier message. */
  act(action: InboundAction): void {
    this.events.inboundAction?.(action)
  }

  /** A poll vote the adapter decrypted. */
  vote(vote: PollVoteSeen): void {
    this.events.pollVote?.(vote)
  }

  /** A step of an incoming call, as the adapter maps WhatsApp's `<call>` stanzas. */
  callStep(signal: CallSignal): void {
    this.events.call?.(signal)
  }

  /** WhatsApp told of a change to one of the phone's groups. */
  groupChanged(notice: GroupNotice): void {
    this.events.groupChanged?.(notice)
  }

  /** WhatsApp's end-of-offline-queue marker did not come in time: the adapter released what it held. */
  missOfflineMarker(atMs: number, waitMs = 10_000, held = true): void {
    this.events.offlineMarkerMissed?.({ atMs, waitMs, held })
  }
}
