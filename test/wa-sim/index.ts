/**
 * wa-sim: a protocol-level WhatsApp simulator for tests. Unmodified Baileys connects to it over
 * `waWebSocketUrl`; everything listens on 127.0.0.1 only.
 *
 * ```ts
 * const sim = await startWaSim()
 * const alice = sim.contact({ phoneNumber: "+15550002222" })
 * // … the app shows a QR from Baileys' connection.update …
 * // The server retires the secret of the first QR scanned (adv-refresh.ts); scanShownQr scans again.
 * await sim.primary("+15550001111").scanShownQr(async () => currentQr)
 * const sent = await sim.nextMessage(alice)         // decrypted by Alice: sent.text, sent.media?.bytes
 * await sim.sendInbound(alice, { text: "hi" })
 * await sim.stop()
 * ```
 *
 * An app under test in another process needs `NODE_EXTRA_CA_CERTS=<sim.mediaCaPath>` at start to
 * upload media; inside the test process use `trustMediaHostInFetch(sim)`.
 */
export { startWaSim, WaSim, type AckErrorCode, type ClientStanza, type MessageTarget, type StreamErrorKind, type WaSimOptions } from "./sim"
export { SimContact, type Addressing, type AutoReceipts, type ContactOptions } from "./contact"
export { SimGroup, type GroupOptions } from "./groups"
export { SimPrimary, type LinkedDevice } from "./primary"
export { advRefreshNode, RetiredQrSecretError, type AdvRefreshChild } from "./adv-refresh"
export { PasskeyRequiredError, passkeyRequestNode } from "./passkey-gate"
export type { OutboundMedia, OutboundMessage } from "./outbound"
export type { MessageKinds, QuotedContext } from "./message-kinds"
export type { InboundContent, InboundOptions } from "./inbound"
export type { TlsCertificate } from "./media-cert"
export { generateLoopbackCertificate } from "./media-cert"
export { trustMediaHostInFetch } from "./media-trust"
export { TestCa } from "./test-ca"
export { startTlsFront, TlsFront, type FrontBehaviour, type TlsFrontOptions, type UpgradeRecord } from "./tls-front"
export { MemoryAuth, TestClient, pairWithQr, simSocketConfig } from "./baileys-client"
export { silentLogger } from "./silent-logger"
export { profileOf, type SimProfile } from "./profile"
export { PhoneAppState, type AddressBookEntry, type ChatSettings, type LabelEntry } from "./app-state-phone"
export { routeWhatsAppMediaHost, SimAppState } from "./app-state-sync"
export { AppStateEvents } from "./app-state-events"
export { COLLECTION_NAMES, type CollectionName, type PatchRefusal } from "./app-state"
