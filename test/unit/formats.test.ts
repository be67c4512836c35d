import { describe, expect, test } from "bun:test"
import { codePointLength, isE164, isGroupJid } from "../../src/lib/formats"

describe("isE164", () => {
  test.each([
    { name: "a US number", value: "+14155550199" },
    { name: "the shortest: + and 8 digits", value: "+12345678" },
    { name: "the longest: + and 15 digits", value: "+123456789012345" },
    { name: "a UK number", value: "+447911123456" },
  ])("accepts $name ($value)", ({ value }) => {
    expect(isE164(value)).toBe(true)
  })

  test.each([
    { name: "no plus", value: "14155550199" },
    { name: "a leading zero after the plus", value: "+04155550199" },
    { name: "7 digits", value: "+1234567" },
    { name: "16 digits", value: "+1234567890123456" },
    { name: "spaces", value: "+1 415 555 0199" },
    { name: "dashes", value: "+1-415-555-0199" },
    { name: "a trailing newline", value: "+14155550199\n" },
    { name: "a double plus", value: "++14155550199" },
    { name: "letters", value: "+1415555O199" },
    { name: "Arabic-Indic digits", value: "+١٤١٥٥٥٥٠١٩٩" },
    { name: "a WhatsApp JID", value: "14155550199@s.whatsapp.net" },
    { name: "empty", value: "" },
  ])("rejects $name ($value)", ({ value }) => {
    expect(isE164(value)).toBe(false)
  })
})

describe("isGroupJid", () => {
  test.each([
    { name: "a modern group", value: "120363000000000001@g.us" },
    { name: "an old-style creator-timestamp group", value: "14155550199-1600000000@g.us" },
    { name: "a single digit", value: "1@g.us" },
  ])("accepts $name ($value)", ({ value }) => {
    expect(isGroupJid(value)).toBe(true)
  })

  test.each([
    { name: "a user JID", value: "14155550199@s.whatsapp.net" },
    { name: "a LID", value: "123456789@lid" },
    { name: "a newsletter", value: "120363000000000001@newsletter" },
    { name: "no digits", value: "@g.us" },
    { name: "two dashes", value: "1-2-3@g.us" },
    { name: "a trailing dash", value: "123-@g.us" },
    { name: "a dot instead of the domain dot", value: "123@gxus" },
    { name: "upper-case domain", value: "123@G.US" },
    { name: "a plus", value: "+123@g.us" },
    { name: "a suffix after the domain", value: "123@g.us.evil" },
    { name: "an E.164 number", value: "+14155550199" },
  ])("rejects $name ($value)", ({ value }) => {
    expect(isGroupJid(value)).toBe(false)
  })
})

describe("codePointLength", () => {
  test.each([
    { name: "empty", value: "", length: 0 },
    { name: "ASCII", value: "Hello", length: 5 },
    { name: "an emoji outside the BMP counts once", value: "👍", length: 1 },
    { name: "a skin-tone modifier is its own code point", value: "Hi 👋🏽!", length: 6 },
    { name: "a precomposed é", value: "\u00e9", length: 1 },
    { name: "a decomposed é is two code points", value: "e\u0301", length: 2 },
    { name: "a ZWJ family is five code points", value: "👨‍👩‍👧", length: 5 },
    { name: "CJK", value: "你好世界", length: 4 },
    { name: "a mathematical letter outside the BMP", value: "𝔸𝔹", length: 2 },
  ])("$name: $length", ({ value, length }) => {
    expect(codePointLength(value)).toBe(length)
  })

  test("4096 emoji are 4096 code points but 8192 UTF-16 units", () => {
    const value = "😀".repeat(4096)
    expect(value.length).toBe(8192)
    expect(codePointLength(value)).toBe(4096)
  })
})
