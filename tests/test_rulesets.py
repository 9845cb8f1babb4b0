"""Ruleset files are data, checked when they load."""

import copy

import pytest

from pipeline import rulesets


def test_both_rulesets_load_and_hash():
    for name in rulesets.names():
        rs = rulesets.load(name)
        assert rs.name == name and len(rs.hash) == 16


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("unhas", "catcher_split", "halves"),
        ("pepet", "locker_penalty", "sometimes"),
        ("pepet", "ties", "split"),
    ],
)
def test_an_unknown_option_value_is_refused(name, key, value):
    params = copy.deepcopy(rulesets.load(name).params)
    params[key] = value
    with pytest.raises(rulesets.BadRuleset, match=key):
        rulesets.override(name, params)


def test_points_must_be_whole_numbers():
    params = copy.deepcopy(rulesets.load("unhas").params)
    params["points"]["apollo"]["winner"] = 6.5
    with pytest.raises(rulesets.BadRuleset, match="points_apollo_winner"):
        rulesets.override("unhas", params)


@pytest.mark.parametrize("extra", [["replaces_e"], ["note"], "replaces_a"])
def test_a_sheets_extra_columns_are_whom_reserves_replace_only(extra):
    params = copy.deepcopy(rulesets.load("pepet").params)
    params["sheet"]["extra_columns"] = extra
    with pytest.raises(rulesets.BadRuleset, match=r"sheet\.extra_columns = .*replaces_a"):
        rulesets.override("pepet", params)
