/**
 * The closed set of failure kinds. The HTTP layer maps each kind to a status code and the spec's
 * short error title; the domain only says what went wrong.
 */
export type ErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "upgrade_required"
  | "conflict"
  | "gone"
  | "payload_too_large"
  | "rate_limited"
  | "internal"
  | "bad_gateway"
  | "unavailable"

/**
 * An expected failure with messages that are safe to show to API clients. The optional `cause`
 * is for logs only and is never serialised.
 */
export class AppError extends Error {
  readonly kind: ErrorKind
  readonly publicMessages: string[]
  readonly retryAfterSeconds?: number
  /** Extra response headers the failure requires (for example `WWW-Authenticate`). */
  readonly headers: Record<string, string>
  /**
   * The node that holds the phone the request needs, when another node does: the HTTP layer
   * forwards the request there (docs/operations.md § "Running several nodes"). Never serialised.
   */
  readonly holderNodeId?: string

  constructor(
    kind: ErrorKind,
    publicMessages: string[],
    options: { cause?: unknown; retryAfterSeconds?: number; headers?: Record<string, string>; holderNodeId?: string } = {},
  ) {
    super(publicMessages.join("; "), { cause: options.cause })
    this.name = "AppError"
    this.kind = kind
    this.publicMessages = publicMessages
    this.retryAfterSeconds = options.retryAfterSeconds
    this.headers = options.headers ?? {}
    if (options.holderNodeId !== undefined) this.holderNodeId = options.holderNodeId
  }
}

/** The catalogue of every error wagate reports, so wording stays consistent everywhere. */
export const errors = {
  validation: (messages: string[]) => new AppError("bad_request", messages),
  invalidJson: () => new AppError("bad_request", ["Request body must be valid JSON"]),
  bodyNotObject: () => new AppError("bad_request", ["Request body must be a JSON object"]),
  unsupportedContentType: () => new AppError("bad_request", ["Content-Type must be application/json"]),
  payloadTooLarge: (limitBytes: number) =>
    new AppError("payload_too_large", [`Request body must not exceed ${limitBytes} bytes`]),
  missingApiKey: () =>
    new AppError("unauthorized", ["Missing API key: send Authorization: Bearer <API_KEY>"], {
      headers: { "WWW-Authenticate": 'Bearer realm="wagate"' },
    }),
  invalidApiKey: () =>
    new AppError("unauthorized", ["Invalid, revoked or expired API key"], {
      headers: { "WWW-Authenticate": 'Bearer realm="wagate", error="invalid_token"' },
    }),
  missingAdminToken: () =>
    new AppError("unauthorized", ["Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>"], {
      headers: { "WWW-Authenticate": 'Bearer realm="wagate-admin"' },
    }),
  missingScope: (accepted: readonly string[]) =>
    new AppError("forbidden", [`API key lacks the required scope: one of ${accepted.join(", ")}`]),
  subscriptionInactive: () =>
    new AppError("forbidden", ["Live keys require an active subscription; this account's subscription is inactive"]),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError("rate_limited", ["Rate limit exceeded"], { retryAfterSeconds }),
  /** A request that names a sending node but whose node signature is missing, stale, reused or wrong (docs/operations.md § "Running several nodes"). */
  nodeRequestUnproven: () =>
    new AppError("unauthorized", ["The request names a sending node (X-Wagate-Forwarded-By) without a valid node signature; only nodes of this cluster may send it"]),
  authRateLimited: (retryAfterSeconds: number) =>
    new AppError("rate_limited", ["Too many failed authentication attempts"], { retryAfterSeconds }),
  /** The key holds its event streams open already (docs/webhooks.md § "Streams"). */
  tooManyStreams: (limit: number) =>
    new AppError("rate_limited", [`This API key has ${limit} event streams open, the most it may; close one before opening another`], { retryAfterSeconds: 15 }),
  routeNotFound: (method: string, path: string) => new AppError("not_found", [`Route ${method} ${path} not found`]),
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new AppError("method_not_allowed", [`Method ${method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`], {
      headers: { Allow: allowed.join(", ") },
    }),
  /** A plain request to a route that only speaks WebSocket (RFC 9110's 426 names the protocol in `Upgrade`). */
  webSocketOnly: (path: string) =>
    new AppError("upgrade_required", [`${path} is a WebSocket: connect with the headers Connection: Upgrade and Upgrade: websocket`], {
      headers: { Upgrade: "websocket" },
    }),
  messageNotFound: (id: string) => new AppError("not_found", [`Message ${id} not found`]),
  /** A reaction, edit or revoke the message's state does not allow (docs/api.md § "Act on a message"). */
  messageActionRefused: (message: string) => new AppError("conflict", [message]),
  sandboxOnly: (route: string) =>
    new AppError("forbidden", [`${route} works with test keys only: a live key's phone hears from real contacts through WhatsApp; use a sk_test_ key of this account`]),
  callNotFound: (id: string) => new AppError("not_found", [`Call ${id} not found`]),
  /** A reject of a call that stopped ringing (docs/api.md § "Calls"). */
  callEnded: (id: string, outcome: string) => new AppError("conflict", [`Call ${id} has ended (${outcome}); only a ringing call can be rejected`]),
  inboundNotFound: (id: string) => new AppError("not_found", [`Inbound message ${id} not found`]),
  phoneNotFound: (ref: string) => new AppError("not_found", [`Phone number ${ref} not found`]),
  phoneNotConnected: (e164: string, status: string) =>
    new AppError("bad_request", [`Phone ${e164} is not connected (status: ${status})`]),
  idempotencyMismatch: () =>
    new AppError("bad_request", ["idempotencyKey was already used with different parameters"]),
  accountNotFound: (id: string) => new AppError("not_found", [`Account ${id} not found`]),
  apiKeyNotFound: (id: string) => new AppError("not_found", [`API key ${id} not found`]),
  /**
   * Several nodes share the database and another one holds the phone, whose socket the request
   * needs (docs/operations.md § "Running several nodes").
   */
  phoneOnOtherNode: (e164: string, nodeId: string | null) =>
    nodeId === null
      ? new AppError("conflict", [`No node holds phone ${e164} yet: nodes claim new phones within seconds; retry shortly`], { retryAfterSeconds: 5 })
      : new AppError("conflict", [`Phone ${e164} is held by node "${nodeId}": send this request to that node`], { holderNodeId: nodeId }),
  /** The node holding the phone was asked to answer a forwarded request and did not (docs/operations.md § "Running several nodes"). */
  holderUnreachable: (nodeId: string) =>
    new AppError("unavailable", [`Node "${nodeId}", which holds the phone this request needs, did not answer at its WAGATE_NODE_URL; retry shortly`], {
      retryAfterSeconds: 5,
    }),
  phoneAlreadyExists: (e164: string) => new AppError("conflict", [`Phone ${e164} already exists`]),
  webhookNotFound: (id: string) => new AppError("not_found", [`Webhook endpoint ${id} not found`]),
  deliveryNotFound: (id: string) => new AppError("not_found", [`Delivery ${id} not found`]),
  deliveryStillPending: (id: string) =>
    new AppError("conflict", [`Delivery ${id} is still being attempted; resend it once it has succeeded or failed`]),
  checkBudgetExhausted: (e164: string, perHour: number, retryAfterSeconds: number) =>
    new AppError("rate_limited", [`Phone ${e164} has used its ${perHour} lookups (number checks and profiles) for this hour; retry after ${retryAfterSeconds} s`], { retryAfterSeconds }),
  inboundMediaNotFound: (id: string) => new AppError("not_found", [`Inbound message ${id} has no media`]),
  inboundMediaGone: (id: string) =>
    new AppError("gone", [`WhatsApp no longer has the media of inbound message ${id} (the sender's phone did not upload it again)`]),
  inboundMediaTooLarge: (id: string, maxBytes: number) =>
    new AppError("bad_gateway", [`The media of inbound message ${id} is larger than the ${Math.floor(maxBytes / 1048576)} MiB cap for its kind`]),
  groupNotFound: (groupId: string, e164: string) => new AppError("not_found", [`Phone ${e164} is not in group ${groupId}`]),
  groupNotAdmin: (groupId: string, e164: string) =>
    new AppError("forbidden", [`Phone ${e164} is not an admin of group ${groupId}: this action needs admin rights`]),
  groupInviteInvalid: () => new AppError("not_found", ["The invite is not valid: it was revoked, or no group has it"]),
  groupRefused: (detail: string) => new AppError("bad_gateway", [`WhatsApp refused the group request (${detail})`]),
  // Pictures (docs/api.md § "Pictures and the phone's own profile"): the image at mediaUrl, refused with a sentence for the client.
  pictureRefused: (message: string) => new AppError("bad_request", [`mediaUrl: ${message}`]),
  pictureTooLarge: (message: string) => new AppError("payload_too_large", [`mediaUrl: ${message}`]),
  pictureUnfetched: (message: string) => new AppError("bad_gateway", [`mediaUrl: ${message}`]),
  pictureNotFound: (ref: string) => new AppError("not_found", [`Phone number ${ref} has no picture set through wagate`]),
  // Blocks and profiles (docs/api.md § "Blocking" and docs/api.md § "Contact profiles").
  contactNotOnWhatsApp: (contact: string) => new AppError("not_found", [`${contact} is not on WhatsApp`]),
  contactPictureNotFound: (target: string) => new AppError("not_found", [`${target} has no profile picture, or its privacy settings hide it`]),
  // Chats (docs/api.md § "Chats and contacts").
  chatNotFound: (chatId: string) => new AppError("not_found", [`Chat ${chatId} not found on this phone`]),
  chatMessageNotFound: (chatId: string, id: string) => new AppError("not_found", [`Chat ${chatId} has no message ${id} with media`]),
  chatMessageMediaGone: (id: string) => new AppError("gone", [`WhatsApp no longer has the media of message ${id}`]),
  chatChangeUnwritten: (chatId: string, cause: unknown) =>
    new AppError("bad_gateway", [`The change to chat ${chatId} could not be written to WhatsApp's app state, so the phone would not show it; nothing was changed. Retry after a moment`], { cause }),
  // Labels (docs/api.md § "Labels").
  phoneNotBusiness: (e164: string) =>
    new AppError("conflict", [`Phone ${e164} is not a WhatsApp Business account: labels exist only in the WhatsApp Business app`]),
  labelsUnknown: (ids: readonly string[]) =>
    new AppError("bad_request", [`labels: ${ids.join(", ")} ${ids.length === 1 ? "is not a label" : "are not labels"} of this phone; GET /v1/labels lists them`]),
  labelChangeUnwritten: (cause: unknown) =>
    new AppError("bad_gateway", ["The label change could not be written to WhatsApp's app state, so the phone would not show it; nothing was recorded. Retry after a moment"], { cause }),
  whatsappUnanswered: (message: string, cause: unknown) => new AppError("bad_gateway", [message], { cause }),
  internal: (cause: unknown) => new AppError("internal", ["Internal server error"], { cause }),
} as const

/**
 * The `errorMessage` of a message WhatsApp refused, saying what is known. Error 463 is told apart
 * by whether the part carried the contact's privacy token (docs/live-whatsapp.md § "Error 463").
 */
export const refusalMessages = {
  privacyTokenMissing: (waCode: string) =>
    `WhatsApp refused the message (error ${waCode}): wagate holds no privacy token from this contact, so none was attached. ` +
    "WhatsApp asks for one while it limits this number's messages to people who have not written to it (a reach-out time lock); " +
    "the contact's token arrives when they write to this number. Ask them to write first: sending again counts as another reach-out",
  restrictedWithToken: (waCode: string) =>
    `WhatsApp refused the message (error ${waCode}) although the contact's privacy token was attached: ` +
    "WhatsApp restricts this number's messages (a reach-out time lock), even to contacts it talks to. " +
    "Sending again counts as another reach-out; wait until WhatsApp lifts the restriction",
  restricted: (waCode: string) =>
    `WhatsApp refused the message (error ${waCode}): this number is under a reach-out time lock or the contact's privacy token was missing; ` +
    "wagate did not record which (the message was sent before a restart)",
  rejected: (waCode: string) => `WhatsApp rejected the message (error ${waCode})`,
} as const
