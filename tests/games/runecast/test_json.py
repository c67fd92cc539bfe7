"""The state as JSON (the screen, MQTT, ``state --json``) and the LED trackers' seats."""

from __future__ import annotations

import json
import re
from pathlib import Path

import companion.games.runecast.engine as engine
from companion.core.events import MESSAGES
from companion.games.runecast import RULES as SHIPPED

from .support import RULES, game

FOUR = "runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF boards=Endless,Small"


def test_the_state_has_every_key_the_issue_names() -> None:
    state = RULES.to_json(game(FOUR).state)
    for key in ("players", "loki_pool", "battle", "battles_left", "thrall", "round",
                "community_death_token", "outcome"):
        assert key in state, key
    for key in ("name", "hp", "alive", "dice_pool", "death_token"):
        assert key in state["players"][0], key
    assert {"name", "wounds", "wounds_needed"} <= set(state["battle"])
    json.dumps(state)


def test_the_state_shows_the_turn() -> None:
    s = game(FOUR, "damage Ann 3", "flip Ann weapon Axe", "roll 2 1 3", "tree_heal")
    state = RULES.to_json(s.state)
    assert state["turn"] == "Ann" and state["phase"] == "turn"
    assert state["roll"] == {"hammers": 2, "snakes": 1, "trees": 3}
    assert (state["flipped"], state["tree_heals"], state["tree_heals_left"]) == (True, 1, 1)
    assert state["players"][0] | {"weapon": "Axe", "set_aside": 1, "dice_pool": 4} == \
        state["players"][0]
    assert state["dice"] == {"pools": 22, "set_aside": 1, "loki": 1, "box": 8, "total": 32}
    assert state["battle"]["wounds"] == 2


def test_the_state_shows_each_step_of_the_last_lokis_roll() -> None:
    s = game(FOUR, "roll 0 6", "next", "roll 6", "next", "roll 6", "next", "roll 6", "next")
    assert RULES.to_json(s.state)["turn"] is None
    s.play("loki_roll hammers=2 snakes=4 card=RRR,FFF,RFR")
    assert RULES.to_json(s.state)["last_loki_roll"] == {
        "round": 1, "roller": "Ann", "agent": False, "dice": 6,
        "hammers": {"count": 2, "result": "everyone", "card": ["RRR", "FFF", "RFR"],
                    "matched": "RRR", "hit": ["Ann", "Bob", "Cid", "Dan"], "damage": 2,
                    "fallen": []},
        "snakes": {"count": 4, "needed": 4, "special_attack": True},
        "trees": {"count": 0, "needed": 3, "boon": False},
        "resolved": True,
    }


def test_seats_have_the_common_keys_and_runecasts() -> None:
    s = game(FOUR, "damage Cid 9", "roll 0 1 5")
    seats = RULES.seats(s.state)
    assert set(seats[0]) == {"seat", "name", "colour", "team", "hp", "max", "tier", "defeated",
                             "active", "winner", "over", "alive", "loki", "thrall", "loki_pool"}
    assert [(x["seat"], x["active"], x["alive"], x["loki"], x["thrall"]) for x in seats] == [
        (1, True, True, False, False),
        (2, False, True, False, False),
        (3, False, False, True, True),  # the agent of Loki rolls this round
        (4, False, True, False, False),
    ]
    assert [x["tier"] for x in seats] == [3, 3, 0, 3]
    assert {x["loki_pool"] for x in seats} == {1}


def test_every_event_kind_has_a_message() -> None:
    source = Path(engine.__file__).read_text()
    emitted = set(re.findall(r'event\(\s*"(runecast\.[a-z_]+)"', source))
    assert len(emitted) > 30
    assert emitted <= MESSAGES.kinds()
    registered = {k for k in MESSAGES.kinds() if k.startswith("runecast.")}
    assert registered == emitted, "a message for an event nothing emits"


def test_the_module_rules_use_the_shipped_data() -> None:
    assert SHIPPED.name == "runecast" and SHIPPED.title == "Runecast"
