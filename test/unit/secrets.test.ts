import { describe, expect, test } from "bun:test"
import { constantTimeEqual, randomBase62, sha256Hex } from "../../src/lib/secrets"

const BASE62 = /^[0-9A-Za-z]+$/

describe("randomBase62", () => {
  test.each([
    { bytes: 32, length: 43 },
    { bytes: 16, length: 22 },
    { bytes: 1, length: 2 },
  ])("$bytes bytes give $length base62 characters", ({ bytes, length }) => {
    for (let i = 0; i < 200; i++) {
      const value = randomBase62(bytes)
      expect(value).toHaveLength(length)
      expect(value).toMatch(BASE62)
    }
  })

  test("values do not repeat and use the whole alphabet", () => {
    const values = Array.from({ length: 2_000 }, () => randomBase62(32))
    expect(new Set(values).size).toBe(values.length)
    // 86,000 characters: every one of the 62 symbols shows up unless the encoding is broken.
    const seen = new Set(values.join(""))
    expect(seen.size).toBe(62)
  })
})

describe("sha256Hex", () => {
  test.each([
    { name: "the empty string", input: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { name: "abc (FIPS 180-2 vector)", input: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    {
      name: "the two-block FIPS vector",
      input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      hex: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    },
    // Digest computed independently (Python hashlib) over the UTF-8 bytes C3 A9.
    { name: "UTF-8 text is hashed as UTF-8", input: "é", hex: "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c" },
    { name: "an API key", input: "sk_test_abc", hex: "4b4090ccee1e713c3d411b96a4226b90bd0f0deb34e02d19475a951316fd04ee" },
  ])("$name", ({ input, hex }) => {
    expect(sha256Hex(input)).toBe(hex)
  })
})

describe("constantTimeEqual", () => {
  test.each([
    { name: "identical strings", a: "sk_test_abc", b: "sk_test_abc", equal: true },
    { name: "two empty strings", a: "", b: "", equal: true },
    { name: "one differing last character", a: "sk_test_abc", b: "sk_test_abd", equal: false },
    { name: "one differing first character", a: "xk_test_abc", b: "sk_test_abc", equal: false },
    { name: "a prefix of the other", a: "sk_test_ab", b: "sk_test_abc", equal: false },
    { name: "empty against non-empty", a: "", b: "a", equal: false },
    { name: "case differs", a: "ABC", b: "abc", equal: false },
  ])("$name → $equal", ({ a, b, equal }) => {
    expect(constantTimeEqual(a, b)).toBe(equal)
    expect(constantTimeEqual(b, a)).toBe(equal)
  })
})
