import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { signatureHeader } from "../../src/webhooks/signer"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The receiver snippets of docs/webhooks.md are code people copy: each one is extracted from the
 * page and run against requests signed by wagate's own signer. TypeScript always; Python and Go
 * where their toolchain is installed (the test name says when one is not).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const DOC = join(import.meta.dir, "..", "..", "docs", "webhooks.md")

/** The fenced blocks of the page that carry a title, by title. */
async function snippets(): Promise<Map<string, string>> {
  const text = await Bun.file(DOC).text()
  const out = new Map<string, string>()
  for (const m of text.matchAll(/^```(\w+) title="([^"]+)"\n([\s\S]*?)^```$/gm)) out.set(m[2]!, m[3]!)
  return out
}

const SECRET = "whsec_uhCx7cgzM7ldOL+hI6EXOTHTMR6/hrQFkNHQm86Qe8c="
const OTHER_SECRET = "whsec_Zm9yZ2V0LW1lLW5vdC1zby1zZWNyZXQtb3RoZXI="
// Non-ASCII content: the HMAC is over the UTF-8 bytes of the body, which a verifier must not re-encode.
const BODY = JSON.stringify({
  event: "message.received",
  timestamp: "2026-11-22T05:41:58.196Z",
  data: { messageId: "inmsg_01m80wd1ac5xrx2wgywh6h19bt", from: "+14155550199", to: "+14155550123", content: "Olá 👋 — ünïcödé", type: "text" },
})

interface Case {
  name: string
  body: string
  header: string
  secret: string
  accepted: boolean
}

/** Signature cases, with the verdict the spec requires; `nowS` is the receiver's clock. */
function cases(nowS: number): Case[] {
  const signed = (secrets: string[], t: number, body = BODY) => signatureHeader(secrets, t, body)
  return [
    { name: "a fresh signature of the body is accepted", body: BODY, header: signed([SECRET], nowS), secret: SECRET, accepted: true },
    { name: "during a rotation the second v1 may be the one that matches", body: BODY, header: signed([OTHER_SECRET, SECRET], nowS), secret: SECRET, accepted: true },
    // Four and six minutes around the 5-minute tolerance: a subprocess takes seconds to start on a busy machine.
    { name: "a signature 4 minutes old is still accepted", body: BODY, header: signed([SECRET], nowS - 240), secret: SECRET, accepted: true },
    { name: "a tampered body is rejected", body: BODY.replace("Olá", "Ola"), header: signed([SECRET], nowS), secret: SECRET, accepted: false },
    { name: "a signature 6 minutes old is rejected", body: BODY, header: signed([SECRET], nowS - 360), secret: SECRET, accepted: false },
    { name: "a signature 6 minutes in the future is rejected", body: BODY, header: signed([SECRET], nowS + 360), secret: SECRET, accepted: false },
    { name: "another secret's signature is rejected", body: BODY, header: signed([OTHER_SECRET], nowS), secret: SECRET, accepted: false },
    { name: "a timestamp that is not digits is rejected", body: BODY, header: signed([SECRET], nowS).replace(/^t=\d+/, `t=+${nowS}`), secret: SECRET, accepted: false },
    { name: "a header without v1 is rejected", body: BODY, header: `t=${nowS}`, secret: SECRET, accepted: false },
    { name: "an empty header is rejected", body: BODY, header: "", secret: SECRET, accepted: false },
  ]
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

let workDir: string
let docSnippets: Map<string, string>

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "wagate-webhook-snippets-"))
  docSnippets = await snippets()
}, 10_000)

afterAll(() => rmSync(workDir, { recursive: true, force: true }))

/** Runs a command with JSON on stdin and returns its stdout parsed as JSON. */
async function runJson(cmd: string[], cwd: string, input: unknown, env: Record<string, string> = {}): Promise<unknown> {
  const proc = Bun.spawn(cmd, { cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } })
  proc.stdin.write(JSON.stringify(input))
  await proc.stdin.end()
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${stderr}`)
  return JSON.parse(stdout)
}

test("docs/webhooks.md has a titled TypeScript, Python and Go snippet", () => {
  expect([...docSnippets.keys()].sort()).toEqual(["verify.go", "verify.py", "verify.ts"])
})

describe("the TypeScript snippet", () => {
  type Snippet = {
    verifyWagateSignature(rawBody: string, header: string | null, secret: string): boolean
    handleWagateWebhook(req: Request, secret: string, onEvent: (event: { event: string }, eventId: string) => Promise<void>): Promise<Response>
  }
  async function load(): Promise<Snippet> {
    const path = join(workDir, "verify.ts")
    writeFileSync(path, docSnippets.get("verify.ts")!)
    return (await import(path)) as Snippet
  }

  test("accepts wagate's signatures and rejects tampered, stale, future and foreign ones", async () => {
    const { verifyWagateSignature } = await load()
    const all = cases(nowSeconds())
    expect(all.map((c) => [c.name, verifyWagateSignature(c.body, c.header, c.secret)])).toEqual(all.map((c) => [c.name, c.accepted]))
  })

  test("its receiver answers 204 once per event id, 400 to a bad signature and 500 when handling fails", async () => {
    const { handleWagateWebhook } = await load()
    const request = (body: string, eventId: string) =>
      new Request("http://127.0.0.1/wagate", {
        method: "POST",
        headers: { "X-Service-Signature": signatureHeader([SECRET], nowSeconds(), BODY), "X-Service-Event-Id": eventId },
        body,
      })
    const handled: string[] = []
    const onEvent = async (event: { event: string }, eventId: string) => void handled.push(`${eventId}:${event.event}`)
    const failing = async () => {
      throw new Error("database down")
    }
    expect((await handleWagateWebhook(request(BODY, "evt_failing"), SECRET, failing)).status).toBe(500)
    expect((await handleWagateWebhook(request(BODY, "evt_1"), SECRET, onEvent)).status).toBe(204)
    expect((await handleWagateWebhook(request(BODY, "evt_1"), SECRET, onEvent)).status).toBe(204)
    expect((await handleWagateWebhook(request(BODY.replace("Olá", "Ola"), "evt_2"), SECRET, onEvent)).status).toBe(400)
    // The event that failed is handled when it comes again.
    expect((await handleWagateWebhook(request(BODY, "evt_failing"), SECRET, onEvent)).status).toBe(204)
    expect(handled).toEqual(["evt_1:message.received", "evt_failing:message.received"])
  })
})

const python = Bun.which("python3")
if (!python) console.warn("docs/webhooks.md: the Python snippet is not run: python3 is not installed")

const PYTHON_DRIVER = `
import json, sys, threading, urllib.request, urllib.error
from http.server import HTTPServer
import verify

cases = json.load(sys.stdin)
verdicts = [verify.verify_wagate_signature(c["body"].encode("utf-8"), c["header"], c["secret"]) for c in cases["signatures"]]

handled = []
def on_event(event, event_id):
    if event_id == "evt_failing" and not handled:
        raise RuntimeError("database down")
    handled.append(event_id + ":" + event["event"])
verify.on_event = on_event

server = HTTPServer(("127.0.0.1", 0), verify.WagateWebhookHandler)
server.RequestHandlerClass.log_message = lambda *args: None
threading.Thread(target=server.serve_forever, daemon=True).start()
statuses = []
for r in cases["requests"]:
    req = urllib.request.Request("http://127.0.0.1:%d/wagate" % server.server_address[1], data=r["body"].encode("utf-8"), method="POST",
                                 headers={"X-Service-Signature": r["header"], "X-Service-Event-Id": r["eventId"]})
    try:
        statuses.append(urllib.request.urlopen(req).status)
    except urllib.error.HTTPError as e:
        statuses.append(e.code)
server.shutdown()
print(json.dumps({"verdicts": verdicts, "statuses": statuses, "handled": handled}))
`

/** The receiver requests every language's handler gets, and what it must answer. */
function receiverRequests(nowS: number) {
  const header = signatureHeader([SECRET], nowS, BODY)
  return {
    requests: [
      { body: BODY, header, eventId: "evt_failing" },
      { body: BODY, header, eventId: "evt_1" },
      { body: BODY, header, eventId: "evt_1" },
      { body: BODY.replace("Olá", "Ola"), header, eventId: "evt_2" },
      { body: BODY, header, eventId: "evt_failing" },
    ],
    statuses: [500, 204, 204, 400, 204],
    handled: ["evt_1:message.received", "evt_failing:message.received"],
  }
}

test.if(Boolean(python))(
  `the Python snippet verifies like the spec and its receiver dedupes${python ? "" : " (not run: python3 is not installed)"}`,
  async () => {
    const dir = join(workDir, "python")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "verify.py"), docSnippets.get("verify.py")!)
    writeFileSync(join(dir, "driver.py"), PYTHON_DRIVER)
    const all = cases(nowSeconds())
    const expected = receiverRequests(nowSeconds())
    const result = (await runJson([python!, "driver.py"], dir, { signatures: all, requests: expected.requests }, { WAGATE_WEBHOOK_SECRET: SECRET })) as {
      verdicts: boolean[]
      statuses: number[]
      handled: string[]
    }
    expect(all.map((c, i) => [c.name, result.verdicts[i]])).toEqual(all.map((c) => [c.name, c.accepted]))
    expect(result.statuses).toEqual(expected.statuses)
    expect(result.handled).toEqual(expected.handled)
  },
  30_000,
)

const go = Bun.which("go")
if (!go) console.warn("docs/webhooks.md: the Go snippet is not run: go is not installed")

const GO_DRIVER = `package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"wagatecheck/wagatehook"
)

type input struct {
	Signatures []struct{ Body, Header, Secret string }
	Requests   []struct {
		Body, Header string
		EventID      string \`json:"eventId"\`
	}
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	verdicts := []bool{}
	for _, c := range in.Signatures {
		verdicts = append(verdicts, wagatehook.VerifySignature([]byte(c.Body), c.Header, c.Secret, time.Now()))
	}
	handled := []string{}
	handler := wagatehook.Handler(os.Getenv("WAGATE_WEBHOOK_SECRET"), func(eventID string, body []byte) error {
		if eventID == "evt_failing" && len(handled) == 0 {
			return errors.New("database down")
		}
		var event struct{ Event string }
		if err := json.Unmarshal(body, &event); err != nil {
			return err
		}
		handled = append(handled, eventID+":"+event.Event)
		return nil
	})
	statuses := []int{}
	for _, r := range in.Requests {
		req := httptest.NewRequest(http.MethodPost, "/wagate", strings.NewReader(r.Body))
		req.Header.Set("X-Service-Signature", r.Header)
		req.Header.Set("X-Service-Event-Id", r.EventID)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		statuses = append(statuses, rec.Code)
	}
	out, _ := json.Marshal(map[string]any{"verdicts": verdicts, "statuses": statuses, "handled": handled})
	fmt.Println(string(out))
}
`

test.if(Boolean(go))(
  `the Go snippet verifies like the spec and its receiver dedupes${go ? "" : " (not run: go is not installed)"}`,
  async () => {
    const dir = join(workDir, "go")
    mkdirSync(join(dir, "wagatehook"), { recursive: true })
    writeFileSync(join(dir, "go.mod"), "module wagatecheck\n\ngo 1.18\n")
    writeFileSync(join(dir, "wagatehook", "verify.go"), docSnippets.get("verify.go")!)
    writeFileSync(join(dir, "main.go"), GO_DRIVER)
    const all = cases(nowSeconds())
    const expected = receiverRequests(nowSeconds())
    // Standard library only: no module download is needed or allowed.
    const env = { WAGATE_WEBHOOK_SECRET: SECRET, GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local" }
    const result = (await runJson([go!, "run", "."], dir, { signatures: all, requests: expected.requests }, env)) as {
      verdicts: boolean[]
      statuses: number[]
      handled: string[]
    }
    expect(all.map((c, i) => [c.name, result.verdicts[i]])).toEqual(all.map((c) => [c.name, c.accepted]))
    expect(result.statuses).toEqual(expected.statuses)
    expect(result.handled).toEqual(expected.handled)
  },
  120_000,
)
