"""A card's face is the same whatever the camera's sharpness and the light's colour."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import synth
from vision.cards.compare import LinedUp, compare
from vision.cards.deck import CONTRADICTION, FIT
from vision.cards.face import (BINS, CLIPPED, LIGHT_SCALE, PAPER_CLIPPED, SIZE, SOFTEN, SOFTEN_LEAST, WASHED_OUT, Face,
                               even_light, glare, own_blur, signature)


def _squared_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean((Face.of(a).detail - Face.of(b).detail) ** 2))


def test_a_soft_photo_and_a_sharp_one_of_a_card_have_the_same_detail() -> None:
    """A phone photo blurred by some 1.7 face pixels against a sharp one: each face is
    blurred only as much as it lacks (plain extra blur on both left 0.016-0.019)."""
    for spec in synth.deck_specs(32, 7)[::4]:
        card = synth.render(spec)
        sharp = cv2.resize(card, SIZE, interpolation=cv2.INTER_AREA)
        soft = cv2.resize(cv2.GaussianBlur(card, (0, 0), 6), SIZE, interpolation=cv2.INTER_AREA)
        assert _squared_difference(sharp, soft) < 0.01, spec.name


def test_a_card_under_a_coloured_light_has_the_same_detail() -> None:
    """A cool light (blue up, red down) changes how dark each colour of the print is in
    plain grey (up to 0.0025 of squared detail); balanced to white first, it does not."""
    for spec in synth.deck_specs(32, 7)[::4]:
        card = cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)
        cool = np.clip(card * np.array([1.25, 1.0, 0.75]), 0, 255).astype(np.uint8)
        assert _squared_difference(card, cool) < 0.0003, spec.name


def test_a_card_under_a_light_with_almost_no_blue_keeps_its_detail() -> None:
    """A deep amber light leaves the blue channel at 2% of its level, mostly the sensor's
    noise: balancing to white may lift a channel at most fourfold, else the noise would be
    blown up into the grey print (0.003-0.016 of squared detail, against 0.0001-0.0023)."""
    rng = np.random.default_rng(0)
    for spec in synth.deck_specs(32, 7)[::4]:
        card = cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)
        amber = card * np.array([0.02, 1.0, 1.0]) + rng.normal(0, 2, card.shape)
        assert _squared_difference(card, np.clip(amber, 0, 255).astype(np.uint8)) < 0.003, spec.name


def _lamp_spot(card: np.ndarray, centre: tuple[float, float], radius: float, light: float) -> np.ndarray:
    """``card`` with a glossy card's glare spot: a lamp's light added, clipped by the sensor."""
    yy, xx = np.mgrid[0:card.shape[0], 0:card.shape[1]].astype(np.float32)
    spot = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius * radius))
    return np.clip(card + light * spot[..., None], 0, 255).astype(np.uint8)


def test_a_glare_spot_leaves_no_contradiction_round_it() -> None:
    """A clipped glare spot over an art card's picture: the light evened round it left a
    ring of detail the card lacks (contradiction 22 and 38 for a limit of 16); round the
    spot's clipped core what shows now counts neither way."""
    specs = {spec.name: spec for spec in synth.deck_specs(60, 0)}
    for name in ("Iron Frost", "Wolf Well"):
        card = cv2.resize(cv2.GaussianBlur(synth.render(specs[name]), (0, 0), 0.6), (220, 310),
                          interpolation=cv2.INTER_AREA)
        lit = Face.of(_lamp_spot(card, (132, 170), 30, 200))
        assert lit.spot.any(), name
        likeness = compare(lit, Face.of(card), np.eye(3, dtype=np.float32))
        assert likeness.contradiction <= CONTRADICTION and likeness.fit <= FIT, name


def test_a_glare_spot_over_a_quarter_of_a_card_is_still_a_spot() -> None:
    """A lamp's spot whose clipped core is a quarter to a third of an art card (0.252-0.374)
    is one round patch, not the card's paper over-exposed all over (which reaches nearly
    all of the card with its ring): what shows round it counts neither way (taken for the
    paper, it left contradictions of up to 85)."""
    specs = {spec.name: spec for spec in synth.deck_specs(60, 0)}
    for name in ("Hall Ash", "Marsh Wolf", "Moon Vale", "Forge Fall"):
        card = cv2.resize(cv2.GaussianBlur(synth.render(specs[name]), (0, 0), 0.6), (220, 310),
                          interpolation=cv2.INTER_AREA)
        for radius in (40, 50):
            spotted = _lamp_spot(card, (110, 200), radius, 255)
            clipped = cv2.inRange(cv2.resize(spotted, SIZE, interpolation=cv2.INTER_AREA),
                                  (CLIPPED,) * 3, (255,) * 3)
            assert np.count_nonzero(clipped) >= PAPER_CLIPPED * clipped.size, (name, radius)
            lit = Face.of(spotted)
            assert lit.spot.any(), (name, radius)
            likeness = compare(lit, Face.of(card), np.eye(3, dtype=np.float32))
            assert likeness.contradiction <= CONTRADICTION and likeness.fit <= FIT, (name, radius)


def test_a_card_over_exposed_all_over_has_no_glare_spot() -> None:
    """A bright lamp or exposure clips a card's white paper everywhere: the print on it is
    all there, so none of it is taken for a glare spot."""
    for spec in synth.deck_specs(32, 7)[::4]:
        card = cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)
        bright = np.clip(card * 1.15, 0, 255).astype(np.uint8)
        assert not Face.of(bright).spot.any(), spec.name


def test_a_face_with_nothing_near_white_has_the_glare_blurring_would_find() -> None:
    """A face whose lightest pixel is under the washed-out level (less a level) is given
    no glare without being blurred: the same mask as blurring it finds, for faces whose
    lightest pixel lies at every level round the limit, and a flat one at the quickest
    way's last level. That one is the worst case: the blur's weights are all positive, so
    no picture whose pixels are all as dark or darker blurs lighter anywhere."""
    def blurred(grey: np.ndarray) -> np.ndarray:
        soft = cv2.GaussianBlur(grey, (0, 0), 1.5)
        mask: np.ndarray = cv2.dilate((soft >= WASHED_OUT).astype(np.uint8), np.ones((5, 5), np.uint8))
        return mask
    greys = [np.full(SIZE[::-1], WASHED_OUT - 2, np.uint8)]
    for spec in synth.deck_specs(32, 7)[::8]:
        grey = cv2.cvtColor(cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        for top in range(WASHED_OUT - 6, WASHED_OUT + 3):
            greys.append(np.clip(grey.astype(np.float32) * top / float(grey.max()), 0, top).astype(np.uint8))
    assert any(int(g.max()) < WASHED_OUT - 1 for g in greys) and any(blurred(g).any() for g in greys)
    for grey in greys:
        assert np.array_equal(glare(grey), blurred(grey)), int(grey.max())


def test_light_evened_round_a_finger_is_each_average_worked_out_in_full() -> None:
    """Evening the light round what covers a card, the share of each neighbourhood that
    shows is blurred once for each scale and shared by the two averages at the larger: the
    detail is the same to the bit as with every average worked out in full."""
    def in_full(grey: np.ndarray, hidden: np.ndarray) -> np.ndarray:
        shown = (~hidden).astype(np.float32)

        def blur(x: np.ndarray, sigma: float) -> np.ndarray:
            blurred: np.ndarray = cv2.GaussianBlur(x, (0, 0), sigma)
            return blurred
        own = own_blur(grey.astype(np.float32), hidden)
        soften = float(np.sqrt(max(SOFTEN ** 2 - own ** 2, SOFTEN_LEAST ** 2)))
        g = blur(grey.astype(np.float32) * shown, soften) / np.maximum(blur(shown, soften), 1e-3)
        centred = (g - blur(g * shown, LIGHT_SCALE) / np.maximum(blur(shown, LIGHT_SCALE), 1e-3)) * shown
        spread = cv2.sqrt(blur(centred * centred * shown, LIGHT_SCALE) / np.maximum(blur(shown, LIGHT_SCALE), 1e-3))
        floor = max(0.25 * float(np.sqrt(np.sum(centred * centred) / max(float(shown.sum()), 1.0))), 2.0)
        evened: np.ndarray = centred / (spread + floor)
        return evened
    finger = cv2.ellipse(np.zeros(SIZE[::-1], np.uint8), (90, 70), (25, 12), 20, 0, 360, 1, -1) > 0
    # Under IPP a face's own blur (cv2.magnitude) has a last bit that depends on where its
    # input lies in memory: to the bit, only without it.
    ipp = cv2.ipp.useIPP()
    cv2.ipp.setUseIPP(False)
    try:
        for spec in synth.deck_specs(32, 3)[::8]:
            card = cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)
            for blur in (0.0, 1.5):
                grey = cv2.cvtColor(cv2.GaussianBlur(card, (0, 0), blur) if blur else card, cv2.COLOR_BGR2GRAY)
                assert np.array_equal(even_light(grey, finger), in_full(grey, finger)), spec.name
    finally:
        cv2.ipp.setUseIPP(ipp)


def test_a_fingers_shadow_beside_its_covering_is_no_contradiction() -> None:
    """A finger over an art card's side casts a shadow just beyond what is taken to lie on
    the card: the print there is only darker, which no other card's print would be
    alone (contradiction 21-34 before, for a limit of 16)."""
    for spec in [s for s in synth.deck_specs(32, 3) if s.family == "art"][:8]:
        card = cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)
        finger = cv2.ellipse(np.zeros(SIZE[::-1], np.uint8), (96, 70), (22, 11), 0, 0, 360, 1, -1)
        shadow = cv2.ellipse(np.zeros_like(finger), (94, 75), (24, 12), 0, 0, 360, 1, -1) & (1 - finger)
        seen = card.astype(np.float32)
        seen[shadow > 0] *= 0.55
        seen[finger > 0] = (140, 170, 215)
        seen = cv2.GaussianBlur(seen, (0, 0), 0.7).astype(np.uint8)
        covering = cv2.dilate(finger, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))) > 0
        likeness = compare(Face.of(seen, covering), Face.of(card), np.eye(3, dtype=np.float32), covering)
        assert likeness.contradiction <= CONTRADICTION, spec.name


def test_a_face_lined_up_once_compares_as_it_would_each_time() -> None:
    """One alignment serves every card shortlisted: the seen face lined up once
    (:class:`LinedUp`) gives each example the likeness :func:`compare` gives it alone,
    with a finger lying over the card and without, and comparing leaves it as it was."""
    specs = [s for s in synth.deck_specs(32, 3) if s.family == "runes"][:4]
    cards = [cv2.resize(synth.render(s), SIZE, interpolation=cv2.INTER_AREA) for s in specs]
    finger = cv2.ellipse(np.zeros(SIZE[::-1], np.uint8), (90, 60), (22, 11), 0, 0, 360, 1, -1) > 0
    warp = np.array([[1.0, 0.01, 1.5], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]], np.float32)
    for covering in (None, finger):
        seen = Face.of(cards[0], covering)
        lined = LinedUp.of(seen, warp, covering)
        kept = [lined.detail.copy(), lined.washed.copy()]
        for card in cards:
            example = Face.of(card)
            alone, shared = compare(seen, example, warp, covering), compare(lined, example)
            assert (shared.fit, shared.contradiction, shared.covered) == (alone.fit, alone.contradiction, alone.covered)
            assert np.array_equal(shared.difference, alone.difference)
            assert np.array_equal(shared.covering, alone.covering)
        assert np.array_equal(lined.detail, kept[0]) and np.array_equal(lined.washed, kept[1])


def test_an_edge_votes_for_its_direction_whichever_way_it_steps() -> None:
    """Edge directions wrap round at 180 degrees: dark to light and light to dark across
    the same line are the same direction (a card turned round keeps its signature)."""
    rising = np.zeros(SIZE[::-1], np.uint8)
    rising[:, SIZE[0] // 2:] = 200
    falling = 200 - rising
    up, down = signature(rising), signature(falling)
    assert np.array_equal(up[:, :BINS], down[:, :BINS])
    assert up[:, :BINS].sum() > 0
