"""The engine against records PyTorch wrote (fixtures/torch_reference.json): the
differential tests run everywhere, PyTorch installed or not."""

import pytest

from diffcompare import autograd as ag

import differential

VERSION, RECORDS = differential.load_fixtures()


def test_fixtures_cover_every_scenario():
    assert VERSION.startswith("2.13") and set(RECORDS) == set(differential.scenario_ids())


@pytest.mark.parametrize("scenario", differential.scenario_ids())
def test_same_as_recorded_pytorch(scenario):
    differential.assert_records_match(differential.run_scenario(scenario, ag, ag), RECORDS[scenario])
