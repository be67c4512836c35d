import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import { groupBookOf, inviteCode, type AdminGroup, type GroupBook } from "./group-admin"
import { echoGroupChange, participantChange } from "./group-echo"
import type { GroupNotificationChange } from "./group-notifications"
import type { IqHandler, IqRequest } from "./iq-handlers"
import { childNodes, childrenByTag, contentBytes, userOf } from "./nodes"

/*
 * The `w:g2` IQs of group administration (README.md § "Group administration"), as Baileys 7
 * lib/Socket/groups.js sends them and whatsmeow group.go reads their answers: who may do what
 * (403 forbidden for a group the phone is not in, 401 not-authorized for an admin action by a
 * plain member, as whatsmeow's ErrNotInGroup and ErrGroupInviteLinkUnauthorized read them), the
 * per-participant errors of an add (403 with `<add_request code expiration>` when the contact's
 * privacy settings refuse it, 409 already in, 404 not on WhatsApp), invite codes (406 unknown,
 * 410 revoked) and joins that wait for an admin (`<membership_approval_request>`). Each change
 * applied is then told to the account's own devices too, as the server does (group-echo.ts).
 */

/** An add's invite lasts three days, as WhatsApp's group invite messages do. */
const ADD_REQUEST_TTL_S = 3 * 86_400

interface GroupCall {
  request: IqRequest
  account: SimAccount
  book: GroupBook
  group: AdminGroup
  /** The first child of the IQ: the action. */
  action: BinaryNode
}

type Need = "member" | "admin" | "info"

/** The paired account and its book, or an IQ error when the connection has not logged in. */
function bookOf(request: IqRequest): { account: SimAccount; book: GroupBook } | undefined {
  const login = request.connection.login
  if (!login) return void request.fail(401, "not-authorized")
  return { account: login.account, book: groupBookOf(login.account) }
}

/** A handler for an IQ to one group, run only when the phone may do it. */
function onGroup(need: Need, step: (call: GroupCall) => void): IqHandler {
  return (request) => {
    const me = bookOf(request)
    if (!me) return
    const id = userOf(request.iq.attrs.to)
    const declared = request.world.groupFor(id)
    const group = me.book.get(id) ?? (declared ? me.book.adopt(declared, request.world.contactFor, request.world.nowMs()) : undefined)
    if (!group) return request.fail(404, "item-not-found")
    if (!group.seatOf(me.account)) return request.fail(403, "forbidden")
    const adminNeeded = need === "admin" || (need === "info" && group.locked)
    if (adminNeeded && !group.isAdmin(me.account)) return request.fail(401, "not-authorized")
    step({ request, ...me, group, action: childNodes(request.iq)[0]! })
  }
}

const nowS = (request: IqRequest): number => Math.floor(request.world.nowMs() / 1000)

/** The contacts (or the account) that participant jids name. */
function participantsOf(call: { request: IqRequest; account: SimAccount }, node: BinaryNode): { jid: string; who: SimAccount | SimContact | undefined }[] {
  return childrenByTag(node, "participant").map((child) => {
    const jid = child.attrs.jid ?? ""
    const user = userOf(jid)
    return { jid, who: call.account.owns(user) ? call.account : call.request.world.contactFor(user) }
  })
}

/** Whom an action changed, for the notification that follows it. */
type Done = (SimAccount | SimContact)[]

/** Adds contacts as WhatsApp does: one `<participant>` answer each, refused ones with their error; `done` gets who was added. */
function addSeats(call: { request: IqRequest; account: SimAccount; book: GroupBook; group: AdminGroup }, node: BinaryNode, done: Done = []): BinaryNode[] {
  return participantsOf(call, node).map(({ jid, who }) => {
    if (!who || ("onWhatsApp" in who && !who.onWhatsApp)) return { tag: "participant", attrs: { jid, error: "404" } }
    if (call.group.seatOf(who)) return { tag: "participant", attrs: { jid, error: "409" } }
    if ("onWhatsApp" in who && call.book.refusesAdds(who)) {
      const invite = { code: inviteCode(), expiration: String(nowS(call.request) + ADD_REQUEST_TTL_S) }
      call.group.addRequests.set(who, invite)
      return { tag: "participant", attrs: { jid, error: "403" }, content: [{ tag: "add_request", attrs: invite }] }
    }
    call.group.seats.push({ who, rank: "member" })
    done.push(who)
    return { tag: "participant", attrs: call.group.participantAttrs(who) }
  })
}

/** Remove, promote or demote: 404 for a participant not in the group; `done` gets who was changed. */
function changeSeats(call: GroupCall, done: Done): BinaryNode[] {
  return participantsOf(call, call.action).map(({ jid, who }): BinaryNode => {
    const seat = who ? call.group.seatOf(who) : undefined
    if (!seat) return { tag: "participant", attrs: { jid, error: "404" } }
    if (call.action.tag === "remove") call.group.seats.splice(call.group.seats.indexOf(seat), 1)
    else if (seat.rank !== "superadmin") seat.rank = call.action.tag === "promote" ? "admin" : "member"
    done.push(seat.who)
    return { tag: "participant", attrs: { jid } }
  })
}

/** A setting only admins change: applied, answered, then told as the notification child `told` makes. */
const setting = (
  apply: (group: AdminGroup, action: BinaryNode) => void,
  told: (group: AdminGroup, action: BinaryNode) => GroupNotificationChange = (_, action) => ({ kind: action.tag as "announcement" | "not_announcement" | "locked" | "unlocked" }),
): IqHandler =>
  onGroup("admin", (call) => {
    apply(call.group, call.action)
    call.request.reply()
    echoGroupChange(call.request, call.group, [told(call.group, call.action)])
  })

/** Remove, promote or demote, answered and then told. */
const seatAction = (tag: "remove" | "promote" | "demote"): IqHandler =>
  onGroup("admin", (call) => {
    const done: Done = []
    call.request.reply([{ tag, attrs: {}, content: changeSeats(call, done) }])
    echoGroupChange(call.request, call.group, participantChange(tag, done, call.account))
  })

/** Answers to an invite code sent to `@g.us`: the group it opens, or 406 unknown / 410 revoked. */
function byCode(request: IqRequest, book: GroupBook): AdminGroup | undefined {
  const code = childNodes(request.iq)[0]?.attrs.code ?? ""
  const found = book.byCode(code)
  if (!found) return void request.fail(406, "not-acceptable")
  if (found.revoked) return void request.fail(410, "gone")
  return found.group
}

export const GROUP_ADMIN_IQS: Record<string, IqHandler> = {
  "w:g2/get/participating": (request) => {
    const me = bookOf(request)
    if (!me) return
    const held = [...me.book.all()]
    const groups = [
      ...held.filter((group) => group.seatOf(me.account)).map((group) => group.node()),
      ...[...request.world.groups()].filter((group) => !me.book.get(group.id)).map((group) => group.node(me.account, request.world.nowMs())),
    ]
    request.reply([{ tag: "groups", attrs: {}, content: groups }])
  },

  "w:g2/get/query": (request) => {
    const me = bookOf(request)
    if (!me) return
    const id = userOf(request.iq.attrs.to)
    const held = me.book.get(id)
    if (held && !held.seatOf(me.account)) return request.fail(403, "forbidden")
    const declared = request.world.groupFor(id)
    if (!held && !declared) return request.fail(404, "item-not-found")
    request.reply([held ? held.node() : declared!.node(me.account, request.world.nowMs())])
  },

  "w:g2/set/create": (request) => {
    const me = bookOf(request)
    if (!me) return
    const create = childNodes(request.iq)[0]!
    const group = me.book.open(create.attrs.subject ?? "", me.account, request.world.nowMs())
    group.seats.push({ who: me.account, rank: "superadmin" })
    const answers = addSeats({ request, ...me, group }, create)
    const node = group.node()
    const refused = answers.filter((answer) => answer.attrs.error !== undefined)
    request.reply([{ ...node, content: [...(node.content as BinaryNode[]), ...refused] }])
    echoGroupChange(request, group, [{ kind: "create", key: create.attrs.key }])
  },

  "w:g2/set/subject": onGroup("info", (call) => {
    call.group.subject = contentBytes(call.action)?.toString("utf8") ?? ""
    call.request.reply()
    echoGroupChange(call.request, call.group, [{ kind: "subject", subject: call.group.subject }])
  }),

  "w:g2/set/description": onGroup("info", (call) => {
    const body = childrenByTag(call.action, "body")[0]
    call.group.description =
      call.action.attrs.delete === "true" || !body ? null : { id: call.action.attrs.id ?? "", body: contentBytes(body)?.toString("utf8") ?? "", atS: nowS(call.request) }
    call.request.reply()
    echoGroupChange(call.request, call.group, [{ kind: "description", description: call.group.description?.body ?? null }])
  }),

  "w:g2/set/announcement": setting((group) => void (group.announce = true)),
  "w:g2/set/not_announcement": setting((group) => void (group.announce = false)),
  "w:g2/set/locked": setting((group) => void (group.locked = true)),
  "w:g2/set/unlocked": setting((group) => void (group.locked = false)),
  "w:g2/set/member_add_mode": setting(
    (group, action) => void (group.memberAddMode = contentBytes(action)?.toString("utf8") === "all_member_add" ? "all_member_add" : "admin_add"),
    (group) => ({ kind: "member_add_mode", mode: group.memberAddMode }),
  ),
  "w:g2/set/membership_approval_mode": setting(
    (group, action) => void (group.approval = childrenByTag(action, "group_join")[0]?.attrs.state === "on"),
    (group) => ({ kind: "membership_approval_mode", on: group.approval }),
  ),
  "w:g2/set/ephemeral": onGroup("info", (call) => {
    call.group.ephemeralSeconds = Number(call.action.attrs.expiration ?? 0)
    call.request.reply()
    echoGroupChange(call.request, call.group, [{ kind: "ephemeral", seconds: call.group.ephemeralSeconds }])
  }),
  "w:g2/set/not_ephemeral": onGroup("info", (call) => {
    call.group.ephemeralSeconds = 0
    call.request.reply()
    echoGroupChange(call.request, call.group, [{ kind: "ephemeral", seconds: 0 }])
  }),

  "w:g2/set/add": onGroup("member", (call) => {
    if (call.group.memberAddMode !== "all_member_add" && !call.group.isAdmin(call.account)) return call.request.fail(401, "not-authorized")
    const added: Done = []
    call.request.reply([{ tag: "add", attrs: {}, content: addSeats(call, call.action, added) }])
    echoGroupChange(call.request, call.group, participantChange("add", added, call.account))
  }),
  "w:g2/set/remove": seatAction("remove"),
  "w:g2/set/promote": seatAction("promote"),
  "w:g2/set/demote": seatAction("demote"),

  "w:g2/get/membership_approval_requests": onGroup("admin", (call) => {
    const requests = call.group.pending.map((who) => ({
      tag: "membership_approval_request",
      attrs: { ...call.group.participantAttrs(who), request_method: "invite_link", request_time: String(nowS(call.request)) },
    }))
    call.request.reply([{ tag: "membership_approval_requests", attrs: {}, content: requests }])
  }),
  "w:g2/set/membership_requests_action": onGroup("admin", (call) => {
    const decision = childNodes(call.action)[0]!
    const approved: Done = []
    const answers = participantsOf(call, decision).map(({ jid, who }): BinaryNode => {
      const at = call.group.pending.findIndex((contact) => contact === who)
      if (at < 0) return { tag: "participant", attrs: { jid, error: "404" } }
      const [contact] = call.group.pending.splice(at, 1)
      if (decision.tag === "approve") call.group.seats.push({ who: contact!, rank: "member" })
      if (decision.tag === "approve") approved.push(contact!)
      return { tag: "participant", attrs: { jid } }
    })
    call.request.reply([{ tag: "membership_requests_action", attrs: {}, content: [{ tag: decision.tag, attrs: {}, content: answers }] }])
    // An approved request is an add; a rejected one's notification (`revoked_membership_requests`) is not modelled.
    echoGroupChange(call.request, call.group, participantChange("add", approved, call.account))
  }),

  /** To a group: its invite code (admins only). To `@g.us` with a code: the group the code opens. */
  "w:g2/get/invite": (request) => {
    if (childNodes(request.iq)[0]?.attrs.code === undefined) return onGroup("admin", (call) => call.request.reply([{ tag: "invite", attrs: { code: call.group.code } }]))(request)
    const me = bookOf(request)
    const group = me && byCode(request, me.book)
    if (group) request.reply([group.node()])
  },
  /** To a group: revokes its code and answers the new one. To `@g.us` with a code: joins (or asks to). */
  "w:g2/set/invite": (request) => {
    if (childNodes(request.iq)[0]?.attrs.code === undefined) {
      return onGroup("admin", (call) => {
        call.group.revokedCodes.add(call.group.code)
        call.group.code = inviteCodeAfter(call.group)
        call.request.reply([{ tag: "invite", attrs: { code: call.group.code } }])
      })(request)
    }
    const me = bookOf(request)
    const group = me && byCode(request, me.book)
    if (!me || !group) return
    if (!group.seatOf(me.account) && group.approval) {
      group.mePending = true
      return request.reply([{ tag: "membership_approval_request", attrs: { jid: group.jid } }])
    }
    const joining = !group.seatOf(me.account)
    if (joining) group.seats.push({ who: me.account, rank: "member" })
    request.reply([{ tag: "group", attrs: { jid: group.jid } }])
    if (joining) echoGroupChange(request, group, [{ kind: "create", reason: "invite" }])
  },

  "w:g2/set/leave": (request) => {
    const me = bookOf(request)
    if (!me) return
    const gone: AdminGroup[] = []
    const left = childrenByTag(childNodes(request.iq)[0], "group").map((node): BinaryNode => {
      const id = node.attrs.id ?? ""
      const declared = request.world.groupFor(userOf(id))
      const group = me.book.get(userOf(id)) ?? (declared ? me.book.adopt(declared, request.world.contactFor, request.world.nowMs()) : undefined)
      const seat = group?.seatOf(me.account)
      if (!group || !seat) return { tag: "group", attrs: { id, error: "404" } }
      group.seats.splice(group.seats.indexOf(seat), 1)
      gone.push(group)
      return { tag: "group", attrs: { id } }
    })
    request.reply([{ tag: "leave", attrs: {}, content: left }])
    // A leave is told as the account removing itself (whatsmeow reads no `leave` child; Baileys reads this as leaving).
    for (const group of gone) echoGroupChange(request, group, participantChange("remove", [me.account], me.account))
  },
}

/** A fresh code unlike every earlier one of the group. */
function inviteCodeAfter(group: AdminGroup): string {
  let code = inviteCode()
  while (code === group.code || group.revokedCodes.has(code)) code = inviteCode()
  return code
}
