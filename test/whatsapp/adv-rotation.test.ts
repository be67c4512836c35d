import { describe, expect, test } from "bun:test"
import { createAdvRotation, isAdvRefresh, notificationAck, withAdvSecret, type NotificationNode } from "../../src/whatsapp/baileys/adv-rotation"

const QR = "https://wa.me/settings/linked_devices#2@ref,noiseKey=,identityKey=,oldSecret=,1"
const refresh = (child: string, attrs: Record<string, string> = {}): NotificationNode => ({
  tag: "notification",
  attrs: { from: "s.whatsapp.net", type: "companion_reg_refresh", id: "n1", ...attrs },
  content: [{ tag: child, attrs: {} }],
})

describe("withAdvSecret: a pairing QR with another ADV secret", () => {
  test.each([
    ["replaces the fourth field and keeps ref, keys and platform", QR, "https://wa.me/settings/linked_devices#2@ref,noiseKey=,identityKey=,newSecret=,1"],
    ["leaves text that is not a pairing QR as it is", "https://example.test/#a,b", "https://example.test/#a,b"],
    ["leaves a string without fields as it is", "no-hash", "no-hash"],
  ])("%s", (_what, qr, expected) => {
    expect(withAdvSecret(qr, "newSecret=")).toBe(expected)
  })
})

describe("isAdvRefresh: only a companion_reg_refresh notification with a known child rotates", () => {
  test.each([
    ["companion_reg_refresh child", refresh("companion_reg_refresh"), true],
    ["pair-device-rotate-qr child", refresh("pair-device-rotate-qr"), true],
    ["an unknown child", refresh("something-else"), false],
    ["no children", { tag: "notification", attrs: { type: "companion_reg_refresh" } }, false],
    ["another notification type", refresh("companion_reg_refresh", { type: "devices" }), false],
    ["not a notification", { tag: "iq", attrs: { type: "companion_reg_refresh" }, content: [{ tag: "companion_reg_refresh" }] }, false],
  ])("%s → %p", (_what, node, expected) => {
    expect(isAdvRefresh(node as NotificationNode)).toBe(expected)
  })
})

test("notificationAck answers with the notification's id, class and type, to its sender", () => {
  expect(notificationAck(refresh("companion_reg_refresh"))).toEqual({ tag: "ack", attrs: { id: "n1", to: "s.whatsapp.net", class: "notification", type: "companion_reg_refresh" } })
})

describe("createAdvRotation", () => {
  test("by QR: a refresh puts a new secret in the credentials and re-renders the QR shown last with the same ref", () => {
    const creds = { advSecretKey: "oldSecret=" }
    const rotation = createAdvRotation(creds, () => false, () => "newSecret=")
    expect(rotation.qr(QR)).toBe(QR)
    const refreshed = rotation.refresh(refresh("companion_reg_refresh"))
    expect(creds.advSecretKey).toBe("newSecret=")
    expect(refreshed?.qr).toBe(QR.replace("oldSecret=", "newSecret="))
    expect(refreshed?.ack.attrs.id).toBe("n1")
    // Baileys' later QR codes still carry the secret it read when pairing began; each is rewritten.
    expect(rotation.qr(QR.replace("2@ref", "2@next"))).toBe(QR.replace("2@ref", "2@next").replace("oldSecret=", "newSecret="))
  })

  test("by QR before any QR was shown: the secret changes and there is nothing to re-render", () => {
    const creds = { advSecretKey: "oldSecret=" }
    const refreshed = createAdvRotation(creds, () => false, () => "newSecret=").refresh(refresh("pair-device-rotate-qr"))
    expect(refreshed?.qr).toBeNull()
    expect(creds.advSecretKey).toBe("newSecret=")
  })

  test("by code: the secret the code exchange derives is kept, and nothing is sent (Baileys acks it there)", () => {
    const creds = { advSecretKey: "derived=" }
    expect(createAdvRotation(creds, () => true, () => "newSecret=").refresh(refresh("companion_reg_refresh"))).toBeNull()
    expect(creds.advSecretKey).toBe("derived=")
  })

  test("another notification changes nothing", () => {
    const creds = { advSecretKey: "oldSecret=" }
    expect(createAdvRotation(creds, () => false, () => "newSecret=").refresh(refresh("companion_reg_refresh", { type: "devices" }))).toBeNull()
    expect(creds.advSecretKey).toBe("oldSecret=")
  })

  test("each new secret is 32 random bytes in base64", () => {
    const creds = { advSecretKey: "oldSecret=" }
    createAdvRotation(creds, () => false).refresh(refresh("companion_reg_refresh"))
    expect(Buffer.from(creds.advSecretKey, "base64")).toHaveLength(32)
  })
})
