"""Block ids that say when an observation was recorded, and the neighbours the recall index
takes from that order (`service.memory.order`)."""

from __future__ import annotations

from service.memory.model import Entity, Observation, new_block_id, parse, recorded_order, render
from service.memory.order import GAP_US, diverse, neighbours, spread, stamps
from service.memory.when import day_of, span_of, spans
from service.numpy_lazy import np


def _parts(*notes: tuple[list[Observation], int]) -> list[tuple[object, object, int]]:
    return [(*stamps(Entity("E", "person", observations=obs)), start) for obs, start in notes]


def _timed(text: str, at: int, by: str = "aaaa", day: str = "") -> Observation:
    digits = np.base_repr(at, 36).lower().rjust(10, "0")
    return Observation(text, None, f"m-{digits}00", {"by": by, "date": day})


def test_new_block_ids_sort_in_the_order_they_were_made_and_say_when() -> None:
    ids = [new_block_id() for _ in range(500)]
    assert ids == sorted(ids) and len(set(ids)) == 500
    times = [recorded_order(i) for i in ids]
    assert all(t is not None for t in times) and times == sorted(times)
    assert recorded_order("m-1a2b3c4d") is None  # an older id, or one a person wrote
    assert recorded_order("summary") is None


def test_a_new_block_id_survives_the_note_round_trip() -> None:
    entity = Entity("Ann", "person", observations=[Observation("Likes tea", None, "", {"by": "ab12"})])
    again = parse(render(entity))
    assert recorded_order(again.observations[0].block_id) is not None
    assert again.observations[0].block_id == entity.observations[0].block_id


def test_observations_recorded_one_after_another_are_neighbours_across_notes() -> None:
    a = [_timed("a1", 100), _timed("a2", 300)]
    b = [_timed("b1", 200), _timed("b2", 400)]
    before, after = neighbours(_parts((a, 0), (b, 2)), 4)
    # recorded a1 (0), b1 (2), a2 (1), b2 (3)
    assert after.tolist() == [2, 3, 1, -1]
    assert before.tolist() == [-1, 2, 0, 1]


def test_other_callers_and_long_pauses_break_the_order() -> None:
    a = [_timed("a1", 100), _timed("a2", 200, by="bbbb"), _timed("a3", 300 + GAP_US + 1)]
    before, after = neighbours(_parts((a, 0)), 3)
    assert before.tolist() == [-1, -1, -1] and after.tolist() == [-1, -1, -1]


def test_observations_about_other_days_are_not_neighbours() -> None:
    a = [_timed("a1", 100, day="8 May, 2023"), _timed("a2", 200), _timed("a3", 300, day="8 May, 2023")]
    before, after = neighbours(_parts((a, 0)), 3)
    assert after.tolist() == [2, -1, -1] and before.tolist() == [-1, -1, 0]  # a2 is about no day


def test_an_observation_without_a_time_has_its_note_neighbours() -> None:
    plain = [Observation(t, None, "m-1a2b3c4d" if t == "x" else "", {}) for t in ("x", "y", "z")]
    other = [Observation("w", None, "", {})]
    before, after = neighbours(_parts((other, 4), (plain, 5)), 8)  # units 0-3 belong to no note
    assert before.tolist() == [-1, -1, -1, -1, -1, -1, 5, 6] and after.tolist() == [-1] * 5 + [6, 7, -1]


def test_spread_sums_each_units_neighbours() -> None:
    values = np.asarray([1.0, 2.0, 4.0], dtype=np.float32)
    before = np.asarray([-1, 0, 1])
    after = np.asarray([1, 2, -1])
    assert spread(values, before, after).tolist() == [2.0, 5.0, 2.0]


def test_a_hit_beside_one_taken_counts_less_so_the_next_come_from_elsewhere() -> None:
    score = np.asarray([1.0, 0.9, 0.8, 0.1], dtype=np.float32)
    before = np.asarray([-1, 0, -1, -1])
    after = np.asarray([1, -1, -1, -1])
    ranked = np.asarray([0, 1, 2, 3])
    got = diverse(ranked, score, before, after, 3, 0.6)
    assert [u for u, _ in got] == [0, 2, 1]
    assert abs(got[2][1] - 0.54) < 1e-6  # its score as damped, so the list stays best first
    assert [u for u, _ in diverse(ranked, score, before, after, 3, 1.0)] == [0, 1, 2]
    # a unit between two hits taken counts 0.6 as much, not 0.36
    middle = diverse(ranked, score, np.asarray([-1, 0, 1, -1]), np.asarray([1, 2, -1, -1]), 3, 0.6)
    assert [u for u, _ in middle] == [0, 2, 1] and abs(middle[2][1] - 0.54) < 1e-6


def test_the_days_a_question_names_and_the_day_a_date_says() -> None:
    from datetime import date

    found, rest = spans("What did Ann bake on October 13, 2023 and in July 2023, or in 2022?")
    days = [(date.fromordinal(a).isoformat(), date.fromordinal(b).isoformat()) for a, b in found]
    assert days == [("2023-10-13", "2023-10-13"), ("2023-07-01", "2023-07-31"), ("2022-01-01", "2022-12-31")]
    assert "2023" not in rest and "October" not in rest and "bake" in rest
    assert spans("When did Melanie go camping in July?")[0] == []  # no year written: none guessed
    assert spans("on 31 February, 2023")[0] == []
    assert date.fromordinal(day_of("1:56 pm on 8 May, 2023") or 0) == date(2023, 5, 8)
    assert date.fromordinal(day_of("2023-05-08T10:00:00Z") or 0) == date(2023, 5, 8)
    assert day_of("last Tuesday") is None
    assert span_of("2023-05") == (date(2023, 5, 1).toordinal(), date(2023, 5, 31).toordinal())
    assert span_of("2023") == (date(2023, 1, 1).toordinal(), date(2023, 12, 31).toordinal())
