import { describe, expect, test } from "bun:test"
import { buildVCard, escapeVCardText } from "../../src/domain/vcard"

describe("escapeVCardText follows RFC 6350 § 3.4", () => {
  test.each([
    { name: "plain text stays as it is", value: "Ada Lovelace", escaped: "Ada Lovelace" },
    { name: "a comma gets a backslash", value: "Lovelace, Ada", escaped: "Lovelace\\, Ada" },
    { name: "a semicolon gets a backslash", value: "R&D; Labs", escaped: "R&D\\; Labs" },
    { name: "a backslash is doubled first, so escapes are not escaped twice", value: "a\\,b", escaped: "a\\\\\\,b" },
    { name: "LF becomes \\n", value: "line 1\nline 2", escaped: "line 1\\nline 2" },
    { name: "CRLF becomes one \\n", value: "line 1\r\nline 2", escaped: "line 1\\nline 2" },
    { name: "a lone CR becomes \\n", value: "line 1\rline 2", escaped: "line 1\\nline 2" },
    { name: "other control characters are dropped", value: "a\u0000b\u001bc\u007fd", escaped: "abcd" },
    { name: "a colon needs no escape in a value", value: "Dept: Sales", escaped: "Dept: Sales" },
    { name: "non-ASCII text stays as it is", value: "José Ñúñez 👋", escaped: "José Ñúñez 👋" },
  ])("$name", ({ value, escaped }) => {
    expect(escapeVCardText(value)).toBe(escaped)
  })
})

describe("buildVCard makes a vCard 3.0 WhatsApp reads", () => {
  test.each([
    {
      name: "one number: N, FN and a TEL whose waid names the WhatsApp account",
      card: { name: "Ada Lovelace", phoneNumbers: ["+14155550199"] },
      lines: ["BEGIN:VCARD", "VERSION:3.0", "N:;Ada Lovelace;;;", "FN:Ada Lovelace", "TEL;type=CELL;type=VOICE;waid=14155550199:+14155550199", "END:VCARD"],
    },
    {
      name: "organization, several numbers and an email, in that order",
      card: { name: "Support", phoneNumbers: ["+14155550199", "+447911123456"], organization: "Acme, Inc.", email: "help@acme.example" },
      lines: [
        "BEGIN:VCARD",
        "VERSION:3.0",
        "N:;Support;;;",
        "FN:Support",
        "ORG:Acme\\, Inc.",
        "TEL;type=CELL;type=VOICE;waid=14155550199:+14155550199",
        "TEL;type=CELL;type=VOICE;waid=447911123456:+447911123456",
        "EMAIL;type=INTERNET:help@acme.example",
        "END:VCARD",
      ],
    },
    {
      name: "a name that tries to inject a property stays one escaped line",
      card: { name: "Eve\r\nTEL:+15550000000;x", phoneNumbers: ["+14155550199"] },
      lines: [
        "BEGIN:VCARD",
        "VERSION:3.0",
        "N:;Eve\\nTEL:+15550000000\\;x;;;",
        "FN:Eve\\nTEL:+15550000000\\;x",
        "TEL;type=CELL;type=VOICE;waid=14155550199:+14155550199",
        "END:VCARD",
      ],
    },
    {
      name: "an empty organization and email are left out",
      card: { name: "Bo", phoneNumbers: ["+14155550199"], organization: "", email: "" },
      lines: ["BEGIN:VCARD", "VERSION:3.0", "N:;Bo;;;", "FN:Bo", "TEL;type=CELL;type=VOICE;waid=14155550199:+14155550199", "END:VCARD"],
    },
  ])("$name", ({ card, lines }) => {
    expect(buildVCard(card).split("\r\n")).toEqual([...lines])
    expect(buildVCard(card)).not.toMatch(/(?<!\r)\n/)
  })
})
