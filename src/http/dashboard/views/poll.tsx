import type { PollResults } from "../../../domain/poll-rules"

/**
 * A poll's results on a message's page: each option with its votes as a meter (no inline style:
 * the dashboard's CSP allows none), then who voted what, newest vote per voter.
 */
export function PollSection(props: { results: PollResults | null }) {
  const r = props.results
  if (!r) return null
  const voters = r.voters.filter((v) => v.options.length > 0).length
  return (
    <section aria-labelledby="poll-title" class="poll">
      <h2 id="poll-title">Poll</h2>
      <p>
        <strong>{r.question}</strong>
        <span class="muted">{` · ${r.multipleAnswers ? "several answers" : "one answer"} · ${voters} ${voters === 1 ? "voter" : "voters"}`}</span>
      </p>
      <ul class="poll-options">
        {r.options.map((o) => (
          <li>
            <span class="poll-name">{o.name}</span>
            <meter min="0" max={String(Math.max(voters, 1))} value={String(o.votes)} aria-label={`${o.name}: ${o.votes} of ${voters}`} />
            <span class="poll-count">{String(o.votes)}</span>
          </li>
        ))}
      </ul>
      {r.voters.length > 0 ? (
        <details>
          <summary>{`Voters (${r.voters.length})`}</summary>
          <ul class="poll-voters">
            {r.voters.map((v) => (
              <li>
                <span class="clip">{v.voter}</span>
                {`: ${v.options.length > 0 ? v.options.join(", ") : "withdrew their vote"} `}
                <time class="muted" datetime={v.at}>{v.at.replace("T", " ").slice(0, 19)}</time>
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p class="muted">No votes yet.</p>
      )}
    </section>
  )
}
