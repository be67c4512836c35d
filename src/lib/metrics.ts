/**
 * A small Prometheus registry: counters and histograms with labels, rendered in the text
 * exposition format (version 0.0.4). wagate exposes a handful of series, so a dependency-free
 * registry is simpler than a client library.
 *
 * Constant labels (the `node` every series of a process carries, docs/operations.md § "Metrics")
 * are added when the text is rendered, so counting on the request path does not carry them.
 */

export type Labels = Record<string, string>

/** `a="x",b="y"` of the constant labels and a series' own key, either of which may be empty. */
function joinKeys(constant: string, key: string): string {
  return constant && key ? `${constant},${key}` : constant || key
}

function labelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k]!)}"`)
    .join(",")
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
}

/**
 * Exposition keys by label set. Counting sits on every request's path, so a label set is looked
 * up by its names and values joined as given, and its sorted, escaped key is built only the
 * first time that set is seen. Label values are bounded (route templates, methods, statuses),
 * so the cache is too.
 */
class LabelKeys {
  private readonly byRaw = new Map<string, string>()

  of(labels: Labels): string {
    let raw = ""
    // Lengths make the joined form unambiguous whatever characters the values hold.
    for (const name in labels) raw += `${name.length}:${name}${labels[name]!.length}:${labels[name]}`
    let key = this.byRaw.get(raw)
    if (key === undefined) this.byRaw.set(raw, (key = labelKey(labels)))
    return key
  }
}

/** A monotonically increasing count, per label set. */
export class Counter {
  private readonly values = new Map<string, number>()
  private readonly keys = new LabelKeys()
  private readonly constantKey: string
  constructor(
    readonly name: string,
    readonly help: string,
    constantLabels: Labels = {},
  ) {
    this.constantKey = labelKey(constantLabels)
  }

  inc(labels: Labels = {}, by = 1): void {
    const key = this.keys.of(labels)
    this.values.set(key, (this.values.get(key) ?? 0) + by)
  }

  /** The current value for a label set (tests and gauges built on counters). */
  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels)) ?? 0
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`]
    for (const [own, value] of this.values) {
      const key = joinKeys(this.constantKey, own)
      lines.push(`${this.name}${key ? `{${key}}` : ""} ${value}`)
    }
    return lines.join("\n")
  }
}

/** A distribution of observations in fixed buckets (seconds by convention). */
export class Histogram {
  private readonly series = new Map<string, { buckets: number[]; sum: number; count: number }>()
  private readonly keys = new LabelKeys()
  private readonly constantKey: string
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bucketBounds: readonly number[],
    constantLabels: Labels = {},
  ) {
    this.constantKey = labelKey(constantLabels)
  }

  observe(value: number, labels: Labels = {}): void {
    const key = this.keys.of(labels)
    let s = this.series.get(key)
    if (!s) this.series.set(key, (s = { buckets: this.bucketBounds.map(() => 0), sum: 0, count: 0 }))
    this.bucketBounds.forEach((bound, i) => {
      if (value <= bound) s!.buckets[i]! += 1
    })
    s.sum += value
    s.count += 1
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`]
    for (const [own, s] of this.series) {
      const key = joinKeys(this.constantKey, own)
      const prefix = key ? `${key},` : ""
      this.bucketBounds.forEach((bound, i) => lines.push(`${this.name}_bucket{${prefix}le="${bound}"} ${s.buckets[i]}`))
      lines.push(`${this.name}_bucket{${prefix}le="+Inf"} ${s.count}`)
      lines.push(`${this.name}_sum${key ? `{${key}}` : ""} ${s.sum}`)
      lines.push(`${this.name}_count${key ? `{${key}}` : ""} ${s.count}`)
    }
    return lines.join("\n")
  }
}

/** A value sampled when the metrics are scraped, per label set, each also carrying the constant labels. */
export function renderGauge(name: string, help: string, samples: { labels: Labels; value: number }[], constantLabels: Labels = {}): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`]
  const constant = labelKey(constantLabels)
  for (const { labels, value } of samples) {
    const key = joinKeys(constant, labelKey(labels))
    lines.push(`${name}${key ? `{${key}}` : ""} ${value}`)
  }
  return lines.join("\n")
}
