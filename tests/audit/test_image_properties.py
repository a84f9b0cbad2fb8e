"""Tests of the Study 2 image properties, per-writer aggregation and per-group fits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis.extra.numpy import arrays

from pruneaudit import audit
from pruneaudit.errors import PruneAuditError


def line_image(r0: int, c0: int, r1: int, c1: int, size: int = 28, width: int = 1) -> np.ndarray:
    """A uint8 canvas with a rasterized line from (r0, c0) to (r1, c1), 255 on 0."""
    img = np.zeros((size, size), dtype=np.uint8)
    steps = 4 * max(abs(r1 - r0), abs(c1 - c0)) + 1
    t = np.linspace(0, 1, steps)
    rr = np.round(r0 + t * (r1 - r0)).astype(int)
    cc = np.round(c0 + t * (c1 - c0)).astype(int)
    for dc in range(width):
        img[rr, np.clip(cc + dc, 0, size - 1)] = 255
    return img


def test_tilt_of_drawn_lines_has_known_slope_and_sign():
    # bottom-left (row 24, col 8) to top-right (row 4, col 20): top leans right
    right = line_image(24, 8, 4, 20)
    left = line_image(24, 20, 4, 8)
    upright = line_image(4, 14, 24, 14, width=3)
    steep = line_image(26, 4, 2, 24)
    batch = torch.from_numpy(np.stack([right, left, upright, steep])[:, None])
    t = audit.tilt(batch)
    assert t[0] == pytest.approx(-12 / 20, abs=0.03)
    assert t[1] == pytest.approx(12 / 20, abs=0.03)
    assert t[2] == 0.0
    assert t[3] == pytest.approx(-20 / 24, abs=0.03)
    assert np.allclose(audit.abs_tilt(batch), np.abs(t))


def test_tilt_undefined_cases_are_nan():
    blank = np.zeros((28, 28), dtype=np.uint8)
    horizontal = line_image(14, 4, 14, 24)
    t = audit.tilt(np.stack([blank, horizontal]))
    assert np.isnan(t).all()


def test_tilt_threshold_relative_to_image_maximum():
    # faint pixels below half the maximum are off; the same image scaled has the same tilt
    img = line_image(24, 8, 4, 20).astype(np.float64)
    noisy = img.copy()
    noisy[0, :] = 100.0  # a faint row: below 0.5 * 255, ignored
    t = audit.tilt(np.stack([img, noisy, img / 255.0]))
    assert t[0] == pytest.approx(t[1]) and t[0] == pytest.approx(t[2])


@settings(max_examples=50, deadline=None)
@given(arrays(np.uint8, (3, 12, 10)))
def test_tilt_mirror_negates_and_matches_polyfit(images):
    t = audit.tilt(images)
    mirrored = audit.tilt(images[:, :, ::-1].copy())
    both = ~np.isnan(t)
    assert np.array_equal(both, ~np.isnan(mirrored))
    assert np.allclose(mirrored[both], -t[both])
    for img, slope in zip(images, t, strict=True):
        if np.isnan(slope):
            continue
        rows, cols = np.nonzero(img > 0.5 * img.max())
        assert slope == pytest.approx(np.polyfit(rows, cols, 1)[0], abs=1e-9)


def test_mean_activation_and_distance_to_class_mean():
    train = np.zeros((4, 1, 2, 2), dtype=np.uint8)
    train[0] = 10
    train[1] = 30  # class 0 mean: 20 everywhere
    train[2] = 0
    train[3] = 100  # class 1 mean: 50 everywhere
    train_labels = np.array([0, 0, 1, 1])
    test = np.stack([np.full((1, 2, 2), 23, np.uint8), np.full((1, 2, 2), 50, np.uint8)])
    labels = torch.tensor([0, 1])
    d = audit.distance_to_class_mean(test, labels, train, train_labels)
    assert np.allclose(d, [np.sqrt(4 * 9), 0.0])
    assert np.allclose(audit.mean_activation(test), [23, 50])
    with pytest.raises(PruneAuditError, match="no training images"):
        audit.distance_to_class_mean(test, np.array([0, 2]), train, train_labels)
    with pytest.raises(PruneAuditError, match="image shape"):
        audit.distance_to_class_mean(test, labels, train[:, :, :1], train_labels)
    with pytest.raises(PruneAuditError, match="shape"):
        audit.distance_to_class_mean(test, np.array([0]), train, train_labels)


def test_image_properties_frame():
    imgs = np.stack([line_image(24, 8, 4, 20), line_image(4, 14, 24, 14)])[:, None]
    props = audit.image_properties(imgs, [0, 0], imgs, np.array([0, 0]))
    assert list(props.columns) == [
        "tilt", "abs_tilt", "mean_activation", "distance_to_class_mean", "entropy",
    ]
    assert props["entropy"].between(0, 8).all()
    assert props["distance_to_class_mean"].iloc[0] == pytest.approx(
        props["distance_to_class_mean"].iloc[1]
    )


def test_input_validation():
    with pytest.raises(PruneAuditError, match="shape"):
        audit.tilt(np.zeros((28, 28)))
    with pytest.raises(PruneAuditError, match="one-channel"):
        audit.tilt(np.zeros((2, 3, 8, 8)))
    with pytest.raises(PruneAuditError, match="NaN"):
        audit.mean_activation(np.full((1, 4, 4), np.nan))
    with pytest.raises(PruneAuditError, match="empty"):
        audit.tilt(np.zeros((0, 28, 28)))


def writers_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "writer": [1, 1, 2, 2, 2, 3, 4, 5, 6],
            "series": ["hsf0", "hsf0", "hsf4", "hsf4", "hsf4", "hsf0", "hsf4", "hsf0", "hsf4"],
            "abs_tilt": [0.1, 0.3, 0.5, np.nan, 0.7, 0.0, 1.0, 0.4, 0.2],
            "correct": [1, 0, 1, 1, 0, 1, 0, 1, 1],
        }
    )


def test_per_writer_means_and_counts():
    pw = audit.per_writer(writers_frame(), ["abs_tilt", "correct"])
    assert list(pw["writer"]) == [1, 2, 3, 4, 5, 6]
    assert list(pw["n"]) == [2, 3, 1, 1, 1, 1]
    assert pw["abs_tilt"].iloc[0] == pytest.approx(0.2)
    assert pw["abs_tilt"].iloc[1] == pytest.approx(0.6)  # NaN skipped
    assert pw["correct"].iloc[1] == pytest.approx(2 / 3)
    bad = writers_frame()
    bad.loc[0, "series"] = "hsf4"
    with pytest.raises(PruneAuditError, match="more than one"):
        audit.per_writer(bad, ["correct"])
    with pytest.raises(PruneAuditError, match="lacks"):
        audit.per_writer(writers_frame(), ["tilt"])


def test_group_linear_fits_hand_computed():
    frame = pd.DataFrame(
        {
            "g": ["a"] * 3 + ["b"] * 4,
            "x": [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0],
            "y": [1.0, 3.0, 5.0, 0.0, -1.0, -2.0, -3.0],
        }
    )
    fits = audit.group_linear_fits(frame, "x", "y", "g").set_index("group")
    assert fits.loc["a", "intercept"] == pytest.approx(1) and fits.loc["a", "slope"] == 2
    assert fits.loc["b", "intercept"] == pytest.approx(0) and fits.loc["b", "slope"] == -1
    assert fits.loc["a", "slope_se"] == pytest.approx(0, abs=1e-12)
    slope, intercept = np.polyfit(frame["x"], frame["y"], 1)
    assert fits.loc["all", "slope"] == pytest.approx(slope)
    assert fits.loc["all", "intercept"] == pytest.approx(intercept)
    assert list(fits["n"]) == [3, 4, 7]
    with pytest.raises(PruneAuditError, match="usable rows"):
        audit.group_linear_fits(frame.iloc[2:], "x", "y", "g")
    with pytest.raises(PruneAuditError, match="constant"):
        audit.group_linear_fits(frame.assign(x=1.0), "x", "y")


def test_property_effects_slopes_of_accuracy_change():
    rng = np.random.default_rng(0)
    n = 40
    tilt = rng.uniform(0, 1, n)
    act = rng.uniform(0, 1, n)
    series = np.where(np.arange(n) % 2 == 0, "hsf0", "hsf4")
    before = rng.uniform(0.9, 1.0, n)
    slope = np.where(series == "hsf0", -0.1, -0.4)
    after = before + slope * tilt
    frame = pd.DataFrame({"series": series, "abs_tilt": tilt, "mean_activation": act,
                          "before": before, "after": after})
    eff = audit.property_effects(frame, ["abs_tilt", "mean_activation"], "before", "after")
    t = eff[eff["property"] == "abs_tilt"].set_index("group")
    assert t.loc["hsf0", "slope"] == pytest.approx(-0.1)
    assert t.loc["hsf4", "slope"] == pytest.approx(-0.4)
    assert len(eff) == 6 and list(eff.columns[:3]) == ["property", "group", "n"]
