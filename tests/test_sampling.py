"""How a build spreads its scenarios over worker processes (`site_builder.sampling.schedule`)."""

from __future__ import annotations

from bridgeshape_mirror import dsl
from bridgeshape_mirror.deals.rules.compiled import compile_scenario
from bridgeshape_mirror.deals.counting.scenario import counting_cost
from bridgeshape_mirror.site_builder.sampling import SampleJob, sample_job, sample_jobs, schedule

ONE_PARTNERSHIP = "opener hcp:15-17 shape:balanced; responder hcp:8+ H:4"
TAKE_OUT = "opener S:5+ hcp:12-21; opp1 S:0-1 hcp:12+; responder hcp:0-8"
OVERCALL = "opener hcp:12+; opp1 H:5+ hcp:8-16"


def jobs_of(*raws: str, count: int = 1) -> list[SampleJob]:
    jobs = []
    for page_id, raw in enumerate(raws, start=1):
        for index, scenario in enumerate(dsl.parse_scenarios(raw), start=1):
            jobs.append(SampleJob(scenario, page_id, 10 * page_id, index, count, 0))
    return jobs


def test_every_job_is_in_exactly_one_share_of_at_most_most_jobs():
    jobs = jobs_of(ONE_PARTNERSHIP, TAKE_OUT, ONE_PARTNERSHIP, OVERCALL, ONE_PARTNERSHIP, ONE_PARTNERSHIP)
    for most in (1, 2, 3, 100):
        shares = schedule(jobs, most)
        assert sorted(i for share in shares for i in share) == list(range(len(jobs)))
        assert all(1 <= len(share) <= most for share in shares)


def test_jobs_with_the_same_rules_share_a_worker_so_they_are_counted_once():
    jobs = jobs_of(ONE_PARTNERSHIP, TAKE_OUT, ONE_PARTNERSHIP, TAKE_OUT, ONE_PARTNERSHIP)
    shares = schedule(jobs, most=100)
    assert sorted(map(sorted, shares)) == [[0, 2, 4], [1, 3]]
    assert [len(share) for share in schedule(jobs, most=2)].count(2) == 2  # 3 alike: split at `most`


def test_scenarios_tying_both_partnerships_go_first_in_page_order_among_equals():
    jobs = jobs_of(ONE_PARTNERSHIP, "responder hcp:6+", TAKE_OUT, OVERCALL)
    order = [share[0] for share in schedule(jobs, most=1)]
    assert order[:2] == [2, 3]  # both partnerships, three seats with HCP rules before two
    assert set(order[2:]) == {0, 1}
    take_out, overcall, one = (counting_cost(compile_scenario(job.scenario)) for job in (jobs[2], jobs[3], jobs[0]))
    assert take_out > overcall > one


def test_a_share_deals_what_its_jobs_deal_one_by_one():
    jobs = jobs_of(ONE_PARTNERSHIP, ONE_PARTNERSHIP, count=3)
    assert sample_jobs(jobs) == [(sample_job(job), None) for job in jobs]


def test_the_same_auction_in_another_suit_shares_a_worker():
    """Renaming the suits keeps the count (`deals.counting.symmetry.canonical`): counted once."""
    renamed = TAKE_OUT.replace("S:", "H:")
    jobs = jobs_of(TAKE_OUT, ONE_PARTNERSHIP, renamed, OVERCALL)
    assert sorted(map(sorted, schedule(jobs, most=100))) == [[0, 2], [1], [3]]
