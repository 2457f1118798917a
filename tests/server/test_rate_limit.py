"""The rate limit's two buckets as a pure object: the time is passed in, nothing waits."""

from __future__ import annotations

from server.shell.rate_limit import RateLimit, Verdict


def test_a_burst_then_the_rate() -> None:
    """``burst`` messages at once are admitted; the next is refused with the time until a token
    comes back; a token comes back every 1/rate seconds."""
    r = RateLimit(per_second=4.0, burst=3, now=100.0)
    assert [r.admit(100.0) for _ in range(3)] == [Verdict.ADMIT] * 3
    assert r.admit(100.0) is Verdict.REFUSE
    assert r.retry_after() == 0.25
    assert r.admit(100.125) is Verdict.REFUSE
    assert r.retry_after() == 0.125
    assert r.admit(100.25) is Verdict.ADMIT  # a quarter of a second after the burst: one token back
    assert r.admit(100.25) is Verdict.REFUSE


def test_refusals_run_out_and_reading_pauses() -> None:
    """Refusals cost tokens of their own bucket; when it is empty the verdict is PAUSE, for as
    long as it takes that bucket to refill one token."""
    r = RateLimit(per_second=2.0, burst=2, now=0.0)
    verdicts = [r.admit(0.0) for _ in range(5)]
    assert verdicts == [Verdict.ADMIT, Verdict.ADMIT, Verdict.REFUSE, Verdict.REFUSE, Verdict.PAUSE]
    assert r.pause_for() == 0.5
    assert r.admit(0.25) is Verdict.PAUSE  # half a refusal's token: not yet
    assert r.pause_for() == 0.25
    # Both buckets refill at the same rate and were empty together: a token is back in each.
    assert r.admit(0.5) is Verdict.ADMIT


def test_buckets_never_hold_more_than_the_burst() -> None:
    """A long quiet spell fills the bucket up to ``burst``, not beyond; a refund too."""
    r = RateLimit(per_second=100.0, burst=2, now=0.0)
    assert r.admit(1000.0) is Verdict.ADMIT
    r.refund()
    r.refund()
    assert [r.admit(1000.0) for _ in range(3)] == [Verdict.ADMIT, Verdict.ADMIT, Verdict.REFUSE]


def test_a_refund_gives_the_token_back() -> None:
    """A refunded message costs nothing: the next one is admitted where it would be refused."""
    r = RateLimit(per_second=1.0, burst=1, now=0.0)
    assert r.admit(0.0) is Verdict.ADMIT
    r.refund()
    assert r.admit(0.0) is Verdict.ADMIT
    assert r.admit(0.0) is Verdict.REFUSE
