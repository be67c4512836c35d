import { describe, expect, test } from "bun:test"
import { Counter, Histogram, renderGauge } from "../../src/lib/metrics"

describe("metrics registry", () => {
  test("one label set counts into one series whatever order its labels are given in", () => {
    const c = new Counter("t_total", "help")
    c.inc({ route: "/a", status: "200" })
    c.inc({ status: "200", route: "/a" }, 2)
    expect(c.get({ route: "/a", status: "200" })).toBe(3)
    expect(c.render()).toBe('# HELP t_total help\n# TYPE t_total counter\nt_total{route="/a",status="200"} 3')
  })

  test("label sets that join alike when concatenated stay separate series", () => {
    const c = new Counter("t_total", "help")
    c.inc({ a: "xby" })
    c.inc({ a: "x", b: "y" })
    expect(c.get({ a: "xby" })).toBe(1)
    expect(c.get({ a: "x", b: "y" })).toBe(1)
  })

  test("label values are escaped in the exposition text", () => {
    const c = new Counter("t_total", "help")
    c.inc({ v: 'a"b\\c\nd' })
    expect(c.render().split("\n")[2]).toBe('t_total{v="a\\"b\\\\c\\nd"} 1')
  })

  test("a histogram counts each observation in every bucket at or above it", () => {
    const h = new Histogram("lag_seconds", "help", [0.1, 1])
    for (const v of [0.05, 0.5, 5]) h.observe(v, { kind: "x" })
    expect(h.render().split("\n").slice(2)).toEqual([
      'lag_seconds_bucket{kind="x",le="0.1"} 1',
      'lag_seconds_bucket{kind="x",le="1"} 2',
      'lag_seconds_bucket{kind="x",le="+Inf"} 3',
      'lag_seconds_sum{kind="x"} 5.55',
      'lag_seconds_count{kind="x"} 3',
    ])
  })

  test("constant labels (the node) go on every series of a counter, a histogram and a gauge, label-less ones included, escaped", () => {
    const node = { node: 'eu"1\\x\ny' }
    const escaped = 'node="eu\\"1\\\\x\\ny"'
    const c = new Counter("t_total", "help", node)
    c.inc()
    c.inc({ route: "/a" })
    expect(c.render().split("\n").slice(2)).toEqual([`t_total{${escaped}} 1`, `t_total{${escaped},route="/a"} 1`])
    // Counting and reading a series ignore the constant labels.
    expect(c.get({ route: "/a" })).toBe(1)
    const h = new Histogram("lag_seconds", "help", [1], node)
    h.observe(0.5)
    expect(h.render().split("\n").slice(2)).toEqual([
      `lag_seconds_bucket{${escaped},le="1"} 1`,
      `lag_seconds_bucket{${escaped},le="+Inf"} 1`,
      `lag_seconds_sum{${escaped}} 0.5`,
      `lag_seconds_count{${escaped}} 1`,
    ])
    expect(renderGauge("g", "help", [{ labels: {}, value: 2 }, { labels: { status: "ok" }, value: 3 }], node).split("\n").slice(2)).toEqual([
      `g{${escaped}} 2`,
      `g{${escaped},status="ok"} 3`,
    ])
  })

  test("without constant labels a label-less series has no braces", () => {
    const c = new Counter("t_total", "help")
    c.inc()
    expect(c.render().split("\n")[2]).toBe("t_total 1")
    expect(renderGauge("g", "help", [{ labels: {}, value: 1 }]).split("\n")[2]).toBe("g 1")
  })
})
