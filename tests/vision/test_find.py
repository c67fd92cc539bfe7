"""Finding the dice: each blob's pixels counted in its own box, and the blobs' label image."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice import find
from vision.dice.find import _label, box_centres, find_blobs
from vision.dice.pips import READ_SIDE
from vision.dice.render import render_scene


def test_each_blobs_pixels_are_counted_with_its_holes_filled() -> None:
    """A blob's pixels are those of its outline filled (a die's pips are part of it), and
    the tray's are all the others, as if the label image were counted whole."""
    mask = np.zeros((60, 90), np.uint8)
    cv2.rectangle(mask, (5, 5), (25, 25), 255, -1)
    cv2.circle(mask, (15, 15), 4, 0, -1)  # a pip: a hole in the blob
    cv2.rectangle(mask, (40, 0), (60, 20), 255, -1)  # at the frame's edge
    cv2.rectangle(mask, (70, 40), (72, 42), 255, -1)  # a speck
    diff = mask.astype(np.float32)
    contours, labels, pixels, _ = _label(mask, diff, 20.0, 4.0)
    assert len(contours) == 3
    assert pixels.tolist() == np.bincount(labels.ravel(), minlength=4).tolist()
    assert sorted(pixels[1:].tolist()) == [9, 21 * 21, 21 * 21]


def test_blobs_measured_in_the_part_holding_them_are_as_in_the_whole_image(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A blob's strong pixels are counted in the part of the image holding the blobs, and
    its widest inscribed circle measured in its own box: as in the whole image, at the
    image's edge too (a blob there, the part reaching it), and for blobs a pixel apart,
    corner to corner."""
    mask = np.zeros((120, 200), np.uint8)
    cv2.rectangle(mask, (30, 20), (70, 60), 255, -1)
    cv2.circle(mask, (50, 40), 5, 0, -1)  # a pip: filled, as part of the blob
    cv2.rectangle(mask, (90, 0), (130, 30), 255, -1)  # at the image's edge
    cv2.rectangle(mask, (72, 62), (86, 76), 255, -1)  # a pixel from the first, corner to corner
    diff = mask.astype(np.float32)
    part = _label(mask, diff, 20.0, 4.0)
    assert find.holding([cv2.boundingRect(c) for c in part[0]], 1, (200, 120)) == (29, 0, 132, 78)
    monkeypatch.setattr(find, "holding", lambda boxes, margin, size: (0, 0, *size))
    whole = _label(mask, diff, 20.0, 4.0)
    assert np.array_equal(part[1], whole[1]) and np.array_equal(part[2], whole[2])
    assert part[3] == whole[3] and len(part[3]) == 3


def test_a_blobs_inscribed_circle_in_its_box_is_as_over_the_whole_image() -> None:
    """A blob's widest inscribed circle, measured in its box with a pixel of tray around it
    (other blobs there counted as tray), is the one the distances over the whole image
    give, bit for bit: for a blob with a hole (filled), one at the image's edge, blobs a
    pixel apart side by side and corner to corner, one in another's box (an L's corner)."""
    mask = np.zeros((90, 160), np.uint8)
    cv2.rectangle(mask, (10, 10), (50, 45), 255, -1)
    cv2.circle(mask, (30, 28), 6, 0, -1)  # a pip
    cv2.rectangle(mask, (52, 10), (70, 30), 255, -1)  # a pixel right of the first
    cv2.rectangle(mask, (52, 47), (66, 60), 255, -1)  # a pixel off its corner
    cv2.rectangle(mask, (0, 60), (25, 89), 255, -1)  # at the image's corner
    cv2.rectangle(mask, (90, 5), (96, 70), 255, -1)  # an L...
    cv2.rectangle(mask, (90, 64), (150, 70), 255, -1)
    cv2.circle(mask, (125, 35), 9, 255, -1)  # ... with a disc inside its box
    cv2.line(mask, (140, 80), (159, 89), 255, 2)  # thin, aslant, at the edge
    contours, labels, _, _ = _label(mask, mask.astype(np.float32), 20.0, 4.0)
    assert len(contours) == 7
    dist = cv2.distanceTransform((labels > 0).view(np.uint8), cv2.DIST_L2, 3)
    for i, c in enumerate(contours):
        box = cv2.boundingRect(c)
        whole = float(dist[labels == i + 1].max())
        assert find._inscribed(labels, i + 1, box) == whole > 0


@pytest.mark.parametrize("grow", [1, 3, 5])
def test_labels_grown_around_their_box_are_as_grown_over_the_whole_image(grow: int) -> None:
    """A view's blobs grown only around the box that holds them are the blobs grown over
    the whole image (the larger label where two meet), at the image's edges too; an image
    with no blob stays tray."""
    labels = np.zeros((80, 120), np.uint8)
    labels[20:30, 30:45] = 1
    labels[31:40, 44:50] = 2  # a pixel below the first, the grown labels meeting
    labels[0:6, 110:120] = 3  # in the corner
    labels[70:80, 0:3] = 4
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    assert np.array_equal(find._grown(labels, grow), cv2.dilate(labels, kernel))
    inner = np.zeros_like(labels)
    inner[30:50, 40:60] = labels[20:40, 30:50]
    assert np.array_equal(find._grown(inner, grow), cv2.dilate(inner, kernel))
    assert not find._grown(np.zeros_like(labels), grow).any()


def test_dice_found_in_part_are_made_whole_as_by_every_pixels_label() -> None:
    """A die found only in part (a blob far smaller than a die) is followed into the
    fainter pixels joined to it; a die found whole, and the faint pixels joined to it, are
    left as they are: the blobs told apart by one look-up of each pixel's blob."""
    mask = np.zeros((100, 160), np.uint8)
    diff = np.zeros((100, 160), np.float32)
    cv2.rectangle(diff, (10, 10), (40, 40), 12.0, -1)  # a pale die, faint...
    cv2.circle(mask, (25, 25), 3, 255, -1)  # ... standing out only by a pip
    cv2.rectangle(diff, (80, 10), (110, 40), 12.0, -1)  # a die found whole...
    cv2.rectangle(mask, (80, 10), (110, 40), 255, -1)
    cv2.rectangle(diff, (111, 20), (140, 30), 12.0, -1)  # ... faint shadow joined to it
    diff[mask > 0] = 60.0
    _, labels, pixels, _ = _label(mask, diff, 20.0, 4.0)
    fuller = find._complete(mask, diff, labels, pixels, 31.0 * 31.0)
    assert fuller is not None
    expected = mask.copy()
    expected[10:41, 10:41] = 255
    assert np.array_equal(fuller, expected)


@pytest.mark.parametrize("specks", [0, 400])
def test_blobs_labels_name_the_kept_blobs_however_many_specks(specks: int) -> None:
    """The work image's labels give each blob kept its number (one more than its index)
    and the rest 0: by a byte-sized look-up where the blobs found are few, else (over 300
    specks of grit found as blobs, and dropped as too small) by NumPy's."""
    rng = np.random.default_rng(1)
    frame = np.full((360, 640, 3), 120, np.uint8)
    for _ in range(specks):
        x, y = int(rng.integers(0, 620)), int(rng.integers(200, 350))
        frame[y:y + 3, x:x + 3] = 250
    for x in (100, 300, 500):
        cv2.rectangle(frame, (x, 60), (x + 40, 100), (250, 250, 250), -1)
    blobs = find_blobs(frame)
    assert len(blobs) == 3 and blobs.labels.dtype == np.uint8
    for k, (x, y, w, h) in enumerate(blobs.boxes):
        inside = blobs.labels[y:y + h, x:x + w]
        assert (inside == k + 1).mean() > 0.9
        assert (blobs.labels == k + 1).sum() == (inside == k + 1).sum()
    assert set(np.unique(blobs.labels).tolist()) == {0, 1, 2, 3}


@pytest.mark.parametrize(("seed", "count", "size"), [(4000, 32, (1280, 720)), (9101, 10, (640, 480)),
                                                     (4003, 12, (1000, 700))])
def test_blobs_centres_from_their_boxes_are_as_from_every_pixel(
        seed: int, count: int, size: tuple[int, int]) -> None:
    """Each blob's centre, in the work copy and in a view, from its pixels in its box, is
    the centre from every pixel's label counted (bit for bit): the boxes hold their blobs,
    a view's grown as the view grows them, at any scale (one that is not a whole number of
    pixels included)."""
    frame = render_scene(seed, count=count, width=size[0], height=size[1]).image
    found = find_blobs(frame)
    view = found.view(frame, READ_SIDE)
    for labels, boxes in ((found.labels, found.boxes), (view.body, view.boxes)):
        blobs = list(range(1, len(boxes) + 1))
        assert len(blobs) > 2
        flat = labels.ravel()
        ys, xs = np.divmod(np.arange(flat.size), labels.shape[1])
        area = np.bincount(flat, minlength=len(blobs) + 1)[:, None]
        every = np.stack([np.bincount(flat, xs, len(blobs) + 1), np.bincount(flat, ys, len(blobs) + 1)], 1) / area
        assert np.array_equal(box_centres(labels, boxes, blobs), every[1:])
        assert np.array_equal(box_centres(labels, boxes, blobs[::-2]), every[blobs[::-2]])
