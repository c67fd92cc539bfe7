"""Fuzzing the command topic: thousands of random payloads, no crash, no change from bad ones."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.core.actions import Param
from companion.core.session import SESSION_ACTIONS
from companion.games.zun.actions import ACTIONS
from companion.payloads import seat_payloads
from tests.support.broker import SecureBroker
from tests.support.mqtt import Companion, Probe, decode, validate

T = "runes/t1"
REPLY = f"{T}/cmd/result/fuzz"
VERBS = {cls.verb: list(cls.params) for cls in (*ACTIONS, *SESSION_ACTIONS)}

scalars = (st.none() | st.booleans() | st.integers(-5, 15) | st.integers()
           | st.floats(allow_nan=True) | st.sampled_from(["Ann", "bob", "3", "", "start"])
           | st.text(max_size=12))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)


def field_values(param: Param, odd: bool) -> st.SearchStrategy[object]:
    """Values of the field's type (often valid), or, if ``odd``, also anything at all."""
    right = {
        "int": st.integers(-2, 45),
        "str": st.sampled_from(["Ann", "bob", "3", "Zed", "", "Forest"]),
        "bool": st.booleans(),
        "choice": st.sampled_from(list(param.choices) + ["never"]),
        "tuple": st.lists(st.sampled_from(["Ann", "Bob", "x"]), max_size=3),
    }[param.kind]
    return right | json_values if odd else right


@st.composite
def near_actions(draw: st.DrawFn) -> bytes:
    """Objects shaped like actions: a real verb, its fields, values of the right type or not."""
    odd = draw(st.booleans())
    verb = draw(st.sampled_from(sorted(VERBS)) | st.text(max_size=8) if odd
                else st.sampled_from(sorted(VERBS)))
    document: dict[str, object] = {"action": verb}
    for param in VERBS.get(verb, []):
        if param.required or draw(st.booleans()):
            document[param.name] = draw(field_values(param, odd))
    if odd:
        document.update(draw(st.dictionaries(
            st.sampled_from(["correlation", "action", "seed", "x"]), json_values, max_size=1)))
    return json.dumps(document).encode()


payloads = st.one_of(
    near_actions(),
    near_actions(),
    st.binary(max_size=64),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=40).map(str.encode),
    st.integers(16_000, 40_000).map(lambda n: b'{"action": "next", "x": "' + b"y" * n + b'"}'),
)


def test_random_commands_never_crash_and_bad_ones_change_nothing(tmp_path: Path,
                                                                  locked_broker: SecureBroker,
                                                                  caplog):
    companion = Companion(tmp_path, locked_broker, setup="zun players=Ann,Bob,Cid hp=40").start()
    client = Probe(locked_broker.host, locked_broker.port, locked_broker.users["controller-t1"])
    assert not client.connect().is_failure
    client.subscribe(REPLY)
    counts = {"ok": 0, "refused": 0}

    @settings(max_examples=2000, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large, HealthCheck.large_base_example])
    @given(payloads)
    def fire(payload: bytes) -> None:
        session = companion.table.session
        before = session.to_json()
        counts_seen = len(client.messages)
        properties = Properties(PacketTypes.PUBLISH)
        properties.ResponseTopic = REPLY
        properties.CorrelationData = str(counts_seen).encode()
        client.publish(f"{T}/cmd", payload, qos=0, properties=properties)
        answer = client.wait_for(
            lambda m: m.properties.CorrelationData == properties.CorrelationData,
            after=counts_seen, timeout=10)
        result = decode(answer.payload)
        validate("result", result)
        after = session.to_json()
        if result["ok"]:
            counts["ok"] += 1
            assert after["revision"] == before["revision"] + 1 == result["revision"]
            for seat in seat_payloads(session):
                validate("seat", seat)
        else:
            counts["refused"] += 1
            assert after == before, f"{payload[:80]!r} was refused but changed the game"
            assert result["revision"] == before["revision"]

    with caplog.at_level(logging.WARNING, logger="companion"):
        try:
            fire()
            assert companion.bridge.is_connected and companion._thread.is_alive()
        finally:
            client.close()
            companion.stop()
    assert counts["ok"] >= 20 and counts["refused"] >= 1000, counts
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[:2000]
