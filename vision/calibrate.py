"""Table calibration: where the board or play area lies in the picture, and whether the camera moved.

Three ways to calibrate, each returning a `Calibration` (a homography from image pixels to
table millimetres, JSON round-trip) or raising `CalibrationError` with a message players
can act on:

- `find_board(image, expected)`: the largest convex quadrilateral with the board's aspect
  ratio (the 11! board, the Numeri track board), corners refined to sub-pixel precision
  from the edge profile along each side;
- `from_markers(image)`: four ArUco markers (4x4_50, ids 0-3 clockwise from top-left)
  printed and laid at the play area's corners (`marker_image()` draws them);
- `from_corners(points, size_mm)`: four corners tapped on a phone.

`check_camera(calibration, image)` compares ORB features with those stored at calibration
to tell whether the view shifted (cards and hands only hide some features; a moved camera
moves all of them). `warp_board()` gives the canonical top-down image at a chosen px/mm.

The outline alone cannot tell a board from the same board turned by 180 degrees; a reader
that knows the printed layout can fix that with `Calibration.rotated()`.
"""

from __future__ import annotations

import base64
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import CalibrationError

FORMAT_VERSION = 1
METHODS = ("board", "markers", "corners")
FEATURE_WIDTH = 640  # ORB works on a copy this wide
MARKER_DICTIONARY = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, eq=False)
class ReferenceFeatures:
    """ORB keypoints of the calibration image, at `scale` x its size, for camera-moved checks."""

    scale: float
    points: np.ndarray  # (N, 2) float32, in pixels of the scaled image
    descriptors: np.ndarray  # (N, 32) uint8

    def to_json(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "points": np.round(self.points.astype(float), 2).tolist(),
            "descriptors": base64.b64encode(np.ascontiguousarray(self.descriptors, np.uint8).tobytes()).decode(),
        }

    @classmethod
    def from_json(cls, data: Any) -> ReferenceFeatures:
        try:
            points = np.asarray(data["points"], np.float32).reshape(-1, 2)
            raw = np.frombuffer(base64.b64decode(data["descriptors"], validate=True), np.uint8)
            descriptors = raw.reshape(-1, 32).copy()
            scale = float(data["scale"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration: 'reference' is damaged ({exc})") from exc
        if len(points) != len(descriptors) or not scale > 0:
            raise CalibrationError("calibration: 'reference' is damaged (points and descriptors differ)")
        return cls(scale=scale, points=points, descriptors=descriptors)


@dataclass(frozen=True)
class Calibration:
    """Where the board or play area is: image pixels <-> table millimetres."""

    homography: tuple[tuple[float, float, float], ...]  # 3x3, image px -> table mm
    image_size: tuple[int, int]  # (width, height) of the calibrated images
    size_mm: tuple[float, float]  # (width, height) of the board or play area
    corners: tuple[tuple[float, float], ...]  # image px: top-left, top-right, bottom-right, bottom-left
    method: str  # "board", "markers" or "corners"
    reference: ReferenceFeatures | None = field(default=None, compare=False)
    details: dict[str, Any] = field(default_factory=dict, compare=False)  # marker ids, fit quality, camera controls

    @classmethod
    def from_quad(cls, corners: Any, size_mm: Sequence[float], image_size: Sequence[int], method: str, *,
                  image: np.ndarray | None = None, details: dict[str, Any] | None = None) -> Calibration:
        quad = np.asarray(corners, np.float64).reshape(4, 2)
        width, height = float(size_mm[0]), float(size_mm[1])
        target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
        matrix = homography(quad, target)
        return cls(
            homography=tuple(tuple(float(v) for v in row) for row in matrix),
            image_size=(int(image_size[0]), int(image_size[1])),
            size_mm=(width, height),
            corners=tuple((float(x), float(y)) for x, y in quad),
            method=method,
            reference=reference_features(image) if image is not None else None,
            details=dict(details or {}),
        )

    @property
    def matrix(self) -> np.ndarray:
        """The homography image px -> table mm as a 3x3 array."""
        return np.array(self.homography, np.float64)

    def image_to_table(self, points: Any) -> np.ndarray:
        """Image pixels (N, 2) -> table millimetres (N, 2)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.matrix).reshape(-1, 2)

    def table_to_image(self, points: Any) -> np.ndarray:
        """Table millimetres (N, 2) -> image pixels (N, 2)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.matrix)).reshape(-1, 2)

    def rotated(self, quarter_turns: int) -> Calibration:
        """The same area with its corner order turned (the board seen from another side).

        Odd quarter turns swap the width and height in millimetres.
        """
        k = quarter_turns % 4
        corners = self.corners[k:] + self.corners[:k]
        size = self.size_mm if k % 2 == 0 else (self.size_mm[1], self.size_mm[0])
        made = Calibration.from_quad(corners, size, self.image_size, self.method, details=self.details)
        return replace(made, reference=self.reference)

    # -- JSON
    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "method": self.method,
            "image_size": list(self.image_size),
            "size_mm": list(self.size_mm),
            "corners": [list(c) for c in self.corners],
            "homography": [list(row) for row in self.homography],
            "details": self.details,
            "reference": None if self.reference is None else self.reference.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "calibration") -> Calibration:
        if not isinstance(data, Mapping):
            raise CalibrationError(f"{where}: expected a JSON object")

        def get(key: str) -> Any:
            if key not in data:
                raise CalibrationError(f"{where}: key '{key}' missing")
            return data[key]

        def numbers(key: str, shape: tuple[int, ...]) -> np.ndarray:
            try:
                arr = np.asarray(get(key), np.float64)
            except (TypeError, ValueError):
                arr = np.zeros(0)
            if arr.shape != shape or not np.all(np.isfinite(arr)):
                raise CalibrationError(f"{where}: '{key}' must be {' x '.join(map(str, shape))} numbers")
            return arr

        if get("version") != FORMAT_VERSION:
            raise CalibrationError(f"{where}: unsupported version {data['version']!r} (expected {FORMAT_VERSION})")
        method = get("method")
        if method not in METHODS:
            raise CalibrationError(f"{where}: 'method' must be one of {', '.join(METHODS)}, not {method!r}")
        image_size = numbers("image_size", (2,))
        size_mm = numbers("size_mm", (2,))
        corners = numbers("corners", (4, 2))
        matrix = numbers("homography", (3, 3))
        if np.any(image_size < 1) or np.any(size_mm <= 0):
            raise CalibrationError(f"{where}: 'image_size' and 'size_mm' must be positive")
        details = data.get("details") or {}
        if not isinstance(details, Mapping):
            raise CalibrationError(f"{where}: 'details' must be an object")
        reference = data.get("reference")
        return cls(
            homography=tuple(tuple(float(v) for v in row) for row in matrix),
            image_size=(int(image_size[0]), int(image_size[1])),
            size_mm=(float(size_mm[0]), float(size_mm[1])),
            corners=tuple((float(x), float(y)) for x, y in corners),
            method=str(method),
            reference=None if reference is None else ReferenceFeatures.from_json(reference),
            details=dict(details),
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write as JSON atomically (a crash leaves the old file or the new one, never half of one)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(self.to_json(), out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read calibration ({exc.strerror or exc})") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path}: not a calibration file (bad JSON: {exc})") from exc
        return cls.from_json(data, where=str(path))


# --------------------------------------------------------------------------- geometry helpers


def homography(src: Any, dst: Any) -> np.ndarray:
    """The 3x3 perspective transform taking four points to four others, in double precision
    (cv2.getPerspectiveTransform works in float32: ~1e-5 mm of error that accumulates in round trips)."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(np.asarray(src, float).reshape(4, 2), np.asarray(dst, float).reshape(4, 2),
                                             strict=True)):
        a[2 * i] = (x, y, 1, 0, 0, 0, -u * x, -u * y)
        a[2 * i + 1] = (0, 0, 0, x, y, 1, -v * x, -v * y)
        b[2 * i], b[2 * i + 1] = u, v
    try:
        h = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as exc:
        raise CalibrationError("the four corners are degenerate (three in a line?)") from exc
    return np.append(h, 1.0).reshape(3, 3)


def _grey(image: np.ndarray) -> np.ndarray:
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        raise CalibrationError("no picture to calibrate from")
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _image_size(image: np.ndarray) -> tuple[int, int]:
    return int(image.shape[1]), int(image.shape[0])


def order_corners(points: Any) -> np.ndarray:
    """Four points as top-left, top-right, bottom-right, bottom-left (clockwise on screen)."""
    pts = np.asarray(points, np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y points down)
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _is_convex(quad: np.ndarray) -> bool:
    return bool(cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)))


def _quad_aspect(quad: np.ndarray) -> float:
    """Width/height of an ordered quad (mean of opposite sides; fine for moderate tilt)."""
    top = np.linalg.norm(quad[1] - quad[0])
    bottom = np.linalg.norm(quad[2] - quad[3])
    left = np.linalg.norm(quad[3] - quad[0])
    right = np.linalg.norm(quad[2] - quad[1])
    return float((top + bottom) / max(left + right, 1e-9))


def _intersect(line_a: tuple[np.ndarray, np.ndarray], line_b: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    (p, d), (q, e) = line_a, line_b
    det = d[0] * (-e[1]) - d[1] * (-e[0])
    if abs(det) < 1e-9:
        return None
    t = ((q[0] - p[0]) * (-e[1]) - (q[1] - p[1]) * (-e[0])) / det
    return p + t * d


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vx, vy, x0, y0 = cv2.fitLine(points.astype(np.float32).reshape(-1, 1, 2), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def _quad_from_outline(outline: np.ndarray) -> np.ndarray | None:
    """Four corners from a closed outline (a contour or its hull): its four dominant straight sides, intersected.

    Short edges (rounded corners, a corner hidden by a card, a glare bump or notch) are
    outvoted; collinear pieces of one side interrupted by a bump are merged.
    """
    perimeter = cv2.arcLength(outline, True)
    poly = cv2.approxPolyDP(outline, 0.006 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4 or len(poly) > 60:
        return None
    lines: list[dict[str, Any]] = []
    edges = sorted(((poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))),
                   key=lambda e: -np.linalg.norm(e[1] - e[0]))
    for a, b in edges:
        length = float(np.linalg.norm(b - a))
        if length < 1e-6:
            continue
        direction = (b - a) / length
        for line in lines:
            d = line["dir"]
            normal = np.array([-d[1], d[0]])
            if abs(float(np.dot(direction, d))) > math.cos(math.radians(7)) and all(
                abs(float(np.dot(p - line["p"], normal))) < 0.015 * perimeter for p in (a, b)
            ):
                line["points"].extend([a, b])
                line["length"] += length
                break
        else:
            lines.append({"p": a, "dir": direction, "points": [a, b], "length": length})
    if len(lines) < 4:
        return None
    best = sorted(lines, key=lambda line: -line["length"])[:4]
    if best[3]["length"] < 0.08 * perimeter:
        return None  # not four real sides (a triangle, a blob)
    centre = poly.mean(axis=0)
    fitted = []
    for line in best:
        pts = np.array(line["points"])
        p, d = _fit_line(pts)
        mid = pts.mean(axis=0)
        fitted.append((math.atan2(mid[1] - centre[1], mid[0] - centre[0]), (p, d)))
    fitted.sort(key=lambda item: item[0])
    corners = []
    for i in range(4):
        point = _intersect(fitted[i][1], fitted[(i + 1) % 4][1])
        if point is None:
            return None
        corners.append(point)
    quad = np.array(corners)
    x0, y0 = poly.min(axis=0)
    x1, y1 = poly.max(axis=0)
    margin = 0.25 * max(x1 - x0, y1 - y0)
    if np.any(quad < [x0 - margin, y0 - margin]) or np.any(quad > [x1 + margin, y1 + margin]):
        return None
    return order_corners(quad)


def _profile_peaks(magnitude: np.ndarray, floor: float) -> list[float]:
    """Sub-pixel indices of the local maxima of a profile that reach `floor`, outermost first."""
    m = magnitude
    inner = np.flatnonzero((m[1:-1] >= floor) & (m[1:-1] >= m[:-2]) & (m[1:-1] > m[2:])) + 1
    peaks = []
    for k in inner:
        left, mid, right = m[k - 1], m[k], m[k + 1]
        denom = left - 2 * mid + right
        shift = 0.5 * (left - right) / denom if abs(denom) > 1e-6 else 0.0
        peaks.append(k + float(np.clip(shift, -0.5, 0.5)))
    return peaks


def _refine_quad(grey: np.ndarray, quad: np.ndarray, search: float) -> tuple[np.ndarray, float]:
    """Move each side onto the board's edge within +-search px; returns (quad, mean residual px).

    Along each side, intensity profiles across it are sampled. In each, the board's outline is
    the outermost strong edge with the board's face just inside it: a frame printed just inside
    the edge can be stronger (but there is face outside it), and a dark edge band or a shadow
    outside the face has an edge too (but no face inside it). A robust line through those
    points, refitted without outliers (glare, a card across the edge), gives the side.
    """
    blurred = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    step, lag, deep = 0.5, 4, 16.0
    # samples: table (16 px, well outside), the search window (+-search+1), face (16 px, well inside)
    offsets = np.arange(-search - 1 - deep, search + 1 + deep + step / 2, step, dtype=np.float32)
    outside = int(round(deep / step))
    window = int(round((2 * search + 2) / step)) + 1
    inset = int(round(1.5 / step))  # where "just inside" an edge is looked at
    lines = []
    residuals = []
    centre = quad.mean(axis=0)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / max(length, 1e-9)
        normal = np.array([-direction[1], direction[0]])
        if np.dot(normal, centre - a) < 0:
            normal = -normal  # point inwards: small offsets are outside the board
        ts = np.linspace(0.1, 0.9, max(12, min(80, int(length / 6))), dtype=np.float32)
        base = a[None, :] + ts[:, None] * (b - a)[None, :]
        xs = (base[:, 0:1] + offsets[None, :] * normal[0]).astype(np.float32)
        ys = (base[:, 1:2] + offsets[None, :] * normal[1]).astype(np.float32)
        profile = cv2.remap(blurred, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        face = np.median(profile[:, outside + window :], axis=1)  # per row: the board well inside
        table_zone = profile[:, : outside - int(round(4 / step))]  # the table, well outside (away from shadows)
        table = float(np.median(table_zone))
        tolerance = max(12.0, 0.3 * abs(float(np.median(face)) - table))
        near = profile[:, outside : outside + window]
        # differences over 2 px: a soft, low-contrast edge stands out of the table's texture
        magnitude = np.abs(near[:, lag:] - near[:, :-lag])  # index k is centred on sample k + lag/2
        strongest = magnitude.max(axis=1)
        typical = float(np.percentile(strongest, 75))
        # the table's texture and sensor noise, measured well outside the board
        noise = 2.5 * float(np.median(np.abs(table_zone[:, lag:] - table_zone[:, :-lag]))) + 2.0
        points = []
        for row in np.flatnonzero(strongest >= max(4.0, noise, 0.35 * typical)):
            peaks = _profile_peaks(magnitude[row], max(noise, 0.15 * strongest[row]))
            for peak in peaks:
                centre_idx = outside + peak + lag / 2  # in the whole profile
                inside = profile[row, min(profile.shape[1] - 1, int(round(centre_idx)) + inset)]
                if abs(float(inside) - float(face[row])) <= tolerance:
                    points.append(base[row] + (offsets[0] + step * centre_idx) * normal)
                    break
        if len(points) < 6:
            lines.append((a, direction))
            continue
        pts = np.array(points)
        p, d = _fit_line(pts)
        dist = np.abs((pts - p) @ np.array([-d[1], d[0]]))
        good = dist < max(1.0, 2.5 * float(np.median(dist)))
        if good.sum() >= 6:
            p, d = _fit_line(pts[good])
            dist = np.abs((pts[good] - p) @ np.array([-d[1], d[0]]))
        residuals.append(float(np.mean(dist)))
        lines.append((p, d))
    refined = []
    for i in range(4):
        point = _intersect(lines[(i - 1) % 4], lines[i])
        refined.append(quad[i] if point is None else point)
    out = np.array(refined)
    if np.max(np.linalg.norm(out - quad, axis=1)) > 3 * search + 2:
        return quad, float("nan")  # the refinement ran off: keep the coarse fit
    return out, float(np.mean(residuals)) if residuals else float("nan")


def _refine_board(grey: np.ndarray, quad: np.ndarray, scale: float) -> tuple[np.ndarray, float]:
    """Two passes: a wide one that pulls every side onto the outline, then a fine one."""
    corners, residual = _refine_quad(grey, quad, search=max(6.0, 5.0 / scale))
    if not math.isnan(residual):
        corners, residual = _refine_quad(grey, corners, search=4.0)
    return corners, residual


def _expected_size(expected: Any) -> tuple[float, float]:
    """(width, height) mm from a pair, a mapping or an object with `size_mm` (a board layout)."""
    value = expected
    if isinstance(expected, Mapping):
        if "size_mm" in expected:
            value = expected["size_mm"]
        elif "width_mm" in expected and "height_mm" in expected:
            value = (expected["width_mm"], expected["height_mm"])
    elif hasattr(expected, "size_mm"):
        value = expected.size_mm
    elif hasattr(expected, "width_mm") and hasattr(expected, "height_mm"):
        value = (expected.width_mm, expected.height_mm)
    try:
        width, height = (float(v) for v in value)
    except (TypeError, ValueError):
        raise CalibrationError(
            f"board size must be (width_mm, height_mm) or a layout with size_mm, not {expected!r}") from None
    if not (width > 0 and height > 0):
        raise CalibrationError(f"board size must be positive, not {width} x {height} mm")
    return width, height


def _binarisations(work: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Masks whose contours may follow the board outline, with the contour retrieval mode to use."""
    grey = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    out: list[tuple[np.ndarray, int]] = []
    otsu, binary = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    for low, high in ((0.4 * otsu, otsu), (20, 50)):  # contrasted edges; a light board on a light table
        out.append((cv2.dilate(cv2.Canny(grey, low, high), np.ones((3, 3), np.uint8)), cv2.RETR_LIST))
    out.append((binary, cv2.RETR_EXTERNAL))
    out.append((cv2.bitwise_not(binary), cv2.RETR_EXTERNAL))
    # Distance from the table's colour, sampled along the picture's border: the board is what is not table.
    lab = cv2.cvtColor(cv2.GaussianBlur(work, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3),
                             lab[:, :4].reshape(-1, 3), lab[:, -4:].reshape(-1, 3)])
    distance = np.linalg.norm(lab - np.median(border, axis=0), axis=2)
    distance = cv2.normalize(distance, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, not_table = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    not_table = cv2.morphologyEx(not_table, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    out.append((not_table, cv2.RETR_EXTERNAL))
    return out


def _gradients(work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    grey = cv2.GaussianBlur(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def _edge_support(gx: np.ndarray, gy: np.ndarray, quad: np.ndarray, samples: int = 60, floor: float = 30.0) -> float:
    """Share of points along the quad's sides that sit on an edge running along the side.

    A fit bulged by glare or a stray object runs across the table there and scores low; a
    textured table gives random gradient directions, rarely along the side.
    """
    hits = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        direction = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        normal = np.array([-direction[1], direction[0]])
        t = np.linspace(0.05, 0.95, samples, dtype=np.float32)[:, None]
        offsets = np.array([-2.0, -1.0, 0.0, 1.0, 2.0], np.float32)[None, :]
        base = a + t * (b - a)
        xs = (base[:, 0:1] + offsets * normal[0]).astype(np.float32)
        ys = (base[:, 1:2] + offsets * normal[1]).astype(np.float32)
        sx = cv2.remap(gx, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        sy = cv2.remap(gy, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        across = np.abs(sx * normal[0] + sy * normal[1])
        along = np.abs(sx * direction[0] + sy * direction[1])
        on_edge = (across >= floor) & (across >= 2 * along)
        hits.append(on_edge.any(axis=1))
    return float(np.concatenate(hits).mean())


# --------------------------------------------------------------------------- calibrations


def find_board(image: np.ndarray, expected: Any, *, aspect_tolerance: float = 0.15,
               min_area: float = 0.04) -> Calibration:
    """Locate a rectangular board of known size: `expected` is (width_mm, height_mm) or a layout.

    Returns a Calibration whose corners go top-left, top-right, bottom-right, bottom-left, with
    the board's width along the first side. Raises CalibrationError when no quadrilateral of the
    board's shape is fully in view.
    """
    width_mm, height_mm = _expected_size(expected)
    grey_full = _grey(image)
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    full_w, full_h = _image_size(image)
    shrink = max(1, math.ceil(max(full_w, full_h) / 1000))  # whole factors: INTER_AREA's fast path
    scale = 1.0 / shrink
    work = cv2.resize(bgr, (full_w // shrink, full_h // shrink), interpolation=cv2.INTER_AREA) if shrink > 1 else bgr
    work_h, work_w = work.shape[:2]
    want = width_mm / height_mm
    tolerance = math.log(1 + aspect_tolerance)

    gx, gy = _gradients(work)
    found: list[tuple[float, np.ndarray]] = []
    cut_off = 0
    wrong_area = wrong_aspect = 0.0
    for mask, mode in _binarisations(work):
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            _, _, box_w, box_h = cv2.boundingRect(contour)
            if box_w * box_h < min_area * work_w * work_h:
                continue
            hull = cv2.convexHull(contour)
            hull_area = cv2.contourArea(hull)
            if hull_area < min_area * work_w * work_h:
                continue
            for outline in (contour, hull):
                quad = _quad_from_outline(outline)
                if quad is None or not _is_convex(quad):
                    continue
                area = abs(_signed_area(quad))
                if not 0.75 * hull_area <= area <= 1.3 * hull_area:
                    continue
                support = _edge_support(gx, gy, quad)
                if support < 0.5:
                    continue  # not a printed outline: texture, shadows, a bulged fit
                if np.any(quad < 2) or np.any(quad[:, 0] > work_w - 3) or np.any(quad[:, 1] > work_h - 3):
                    cut_off += 1  # (a board cut by the picture's edge has lost its proportions too)
                    continue
                aspect = _quad_aspect(quad)
                error = min(abs(math.log(aspect / want)), abs(math.log(aspect * want)))
                if error > tolerance:
                    if area > wrong_area:  # report the largest outline seen
                        wrong_area, wrong_aspect = area, max(aspect, 1 / aspect)
                    continue
                found.append((area * support * support, quad))
    if found:
        # the refined outline must still have the board's shape (a coarse fit can be a printed inner frame)
        _, quad = max(found, key=lambda item: item[0])
        corners, residual = _refine_board(grey_full, quad / scale, scale)
        aspect = _quad_aspect(order_corners(corners))
        if min(abs(math.log(aspect / want)), abs(math.log(aspect * want))) > tolerance:
            found = []
            wrong_area, wrong_aspect = abs(_signed_area(corners)), max(aspect, 1 / aspect)
    if not found:
        if cut_off:
            raise CalibrationError("board not found: it is cut off at the edge of the picture; "
                                   "move the camera or the board so all of it is in view")
        if wrong_area:
            raise CalibrationError(f"board not found: the largest rectangle seen is {wrong_aspect:.2f}:1, the board "
                                   f"is {max(want, 1 / want):.2f}:1; is all of it in view?")
        raise CalibrationError("board not found: is all of it in view? (and not covered by cards or glare)")

    corners = order_corners(corners)
    # Put the board's width along the first side: a landscape board seen portrait starts elsewhere.
    side_ratio = np.linalg.norm(corners[1] - corners[0]) / max(np.linalg.norm(corners[3] - corners[0]), 1e-9)
    if (side_ratio >= 1) != (want >= 1):
        corners = np.roll(corners, -1, axis=0)
    details = {"aspect": round(_quad_aspect(corners), 4), "edge_residual_px": None if math.isnan(residual)
               else round(residual, 3)}
    return Calibration.from_quad(corners, (width_mm, height_mm), (full_w, full_h), "board", image=bgr,
                                 details=details)


def _aruco_dictionary(name: str) -> Any:
    if not hasattr(cv2, "aruco"):
        raise CalibrationError("this OpenCV build has no ArUco markers: calibrate from the board or tapped corners")
    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    except AttributeError as exc:
        raise CalibrationError(f"unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50)") from exc


def marker_image(marker_id: int, side_px: int = 400, dictionary: str = MARKER_DICTIONARY) -> np.ndarray:
    """A printable marker (grey uint8) with a white margin of one cell round it."""
    aruco_dict = _aruco_dictionary(dictionary)
    if hasattr(cv2.aruco, "generateImageMarker"):
        marker = cv2.aruco.generateImageMarker(aruco_dict, int(marker_id), int(side_px))
    else:  # OpenCV < 4.7 (Debian Bookworm's python3-opencv)
        marker = cv2.aruco.drawMarker(aruco_dict, int(marker_id), int(side_px))
    margin = max(8, side_px // 6)
    return cv2.copyMakeBorder(marker, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=255)


def detect_markers(image: np.ndarray, dictionary: str = MARKER_DICTIONARY) -> dict[int, np.ndarray]:
    """ArUco markers in the picture: id -> (4, 2) corners (the marker's own order, sub-pixel)."""
    aruco_dict = _aruco_dictionary(dictionary)
    if hasattr(cv2.aruco, "ArucoDetector"):
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = cv2.aruco.ArucoDetector(aruco_dict, params).detectMarkers(_grey(image))
    else:  # OpenCV < 4.7 (Debian Bookworm's python3-opencv)
        params = cv2.aruco.DetectorParameters_create()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        corners, ids, _ = cv2.aruco.detectMarkers(_grey(image), aruco_dict, parameters=params)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        quad = quad.reshape(4, 2).astype(np.float64)
        key = int(marker_id)
        if key in found:  # keep the bigger one; a duplicate is usually a reflection or a spare print
            if cv2.contourArea(quad.astype(np.float32)) <= cv2.contourArea(found[key].astype(np.float32)):
                continue
        found[key] = quad
    return found


def _size_from_markers(centres: np.ndarray, markers: list[np.ndarray], marker_mm: float) -> tuple[float, float]:
    """Play-area width and height in mm from the printed marker size.

    With the centres mapped to a unit square, a marker side (u, v) in unit coordinates is
    (u*W, v*H) in mm and has length marker_mm: u^2 W^2 + v^2 H^2 = marker_mm^2, one linear
    equation in W^2, H^2 per side; 16 sides, least squares.
    """
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_unit = cv2.getPerspectiveTransform(centres.astype(np.float32), unit)
    rows = []
    for quad in markers:
        mapped = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), to_unit).reshape(4, 2)
        for i in range(4):
            u, v = mapped[(i + 1) % 4] - mapped[i]
            rows.append((u * u, v * v))
    a = np.array(rows)
    b = np.full(len(rows), marker_mm * marker_mm)
    solution, _, rank, _ = np.linalg.lstsq(a, b, rcond=None)
    if rank < 2 or np.any(solution <= 0):
        raise CalibrationError("cannot work out the play area's size from the markers: give size_mm")
    return float(math.sqrt(solution[0])), float(math.sqrt(solution[1]))


def from_markers(image: np.ndarray, *, size_mm: Sequence[float] | None = None, marker_mm: float = 40.0,
                 dictionary: str = MARKER_DICTIONARY, ids: Sequence[int] = MARKER_IDS) -> Calibration:
    """Calibrate from four ArUco markers at the play area's corners (their centres are the corners).

    `ids` go top-left, top-right, bottom-right, bottom-left. Without `size_mm`, the area's size
    is worked out from the printed marker side `marker_mm`.
    """
    if len(ids) != 4 or len(set(ids)) != 4:
        raise CalibrationError(f"four different marker ids are needed, not {list(ids)}")
    found = detect_markers(image, dictionary)
    missing = [i for i in ids if i not in found]
    if missing:
        seen = ", ".join(str(i) for i in sorted(found)) or "none"
        raise CalibrationError(f"corner markers {', '.join(map(str, missing))} not found (seen: {seen}): "
                               "are all four markers in view and uncovered?")
    markers = [found[i] for i in ids]
    centres = np.array([m.mean(axis=0) for m in markers])
    if not _is_convex(centres) or _signed_area(centres) <= 0:
        raise CalibrationError(f"the markers are not in order: put marker {ids[0]} top-left, {ids[1]} top-right, "
                               f"{ids[2]} bottom-right and {ids[3]} bottom-left")
    if size_mm is None:
        if not marker_mm > 0:
            raise CalibrationError("give the play area's size_mm or the printed marker size marker_mm")
        size = _size_from_markers(centres, markers, marker_mm)
    else:
        size = _expected_size(size_mm)
    details = {"marker_ids": list(ids), "dictionary": dictionary, "marker_mm": marker_mm,
               "size_estimated": size_mm is None}
    return Calibration.from_quad(centres, size, _image_size(image), "markers", image=image, details=details)


def from_corners(points: Any, size_mm: Sequence[float], image: np.ndarray | None = None, *,
                 image_size: Sequence[int] | None = None) -> Calibration:
    """Calibrate from four corners tapped on the phone, in pixels of the picture shown.

    The first point tapped is the area's top-left; the others may come in any order.
    """
    try:
        pts = np.asarray(points, np.float64).reshape(4, 2)
    except (TypeError, ValueError) as exc:
        raise CalibrationError("tap exactly four corners") from exc
    if not np.all(np.isfinite(pts)):
        raise CalibrationError("tap exactly four corners")
    size = _expected_size(size_mm)
    if image is not None:
        width, height = _image_size(image)
    elif image_size is not None:
        width, height = int(image_size[0]), int(image_size[1])
    else:
        raise CalibrationError("from_corners needs the picture (or its size) the corners were tapped on")
    for n, (x, y) in enumerate(pts, start=1):
        if not (-1 <= x <= width + 1 and -1 <= y <= height + 1):
            raise CalibrationError(f"corner {n} ({x:.0f}, {y:.0f}) lies outside the {width}x{height} picture")
    first = pts[0]
    ordered = order_corners(pts)
    start = int(np.argmin(np.linalg.norm(ordered - first, axis=1)))
    ordered = np.roll(ordered, -start, axis=0)
    if min(np.linalg.norm(ordered[i] - ordered[(i + 1) % 4]) for i in range(4)) < 10 or not _is_convex(ordered):
        raise CalibrationError("the four corners do not make a proper quadrilateral: tap each corner once")
    if abs(_signed_area(ordered)) < 0.005 * width * height:
        raise CalibrationError("the tapped area is too small: tap the four corners of the board or play area")
    return Calibration.from_quad(ordered, size, (width, height), "corners", image=image,
                                 details={"tapped": [[round(x, 1), round(y, 1)] for x, y in pts]})


# --------------------------------------------------------------------------- has the camera moved?


def _feature_grey(image: np.ndarray) -> tuple[np.ndarray, float]:
    grey = _grey(image)
    scale = min(1.0, FEATURE_WIDTH / grey.shape[1])
    if scale < 1:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return grey, scale


def _orb() -> Any:
    return cv2.ORB_create(nfeatures=800, scaleFactor=1.2, nlevels=6, fastThreshold=12)


def reference_features(image: np.ndarray) -> ReferenceFeatures:
    """ORB keypoints and descriptors of a calibration picture."""
    grey, scale = _feature_grey(image)
    keypoints, descriptors = _orb().detectAndCompute(grey, None)
    if descriptors is None:
        return ReferenceFeatures(scale, np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    points = np.array([kp.pt for kp in keypoints], np.float32).reshape(-1, 2)
    return ReferenceFeatures(scale, points, descriptors)


@dataclass(frozen=True)
class CameraCheck:
    """Result of `check_camera`: `shift_px` is how far the calibrated corners appear to have moved."""

    moved: bool
    shift_px: float  # full-resolution pixels (inf when the view no longer matches at all)
    matches: int
    inliers: int
    reason: str

    def __bool__(self) -> bool:
        return self.moved


def check_camera(calibration: Calibration, image: np.ndarray, *, tolerance_px: float | None = None,
                 min_inliers: int = 12) -> CameraCheck:
    """Has the view shifted since calibration? Meant for still frames (no hand over the table).

    Matches ORB features with the calibration picture and fits a similarity transform with
    RANSAC: cards laid down and hands only hide or add features (they are outliers), a moved
    camera moves all of them. Moved when the calibrated corners shift by more than
    `tolerance_px` (default 0.4 % of the image width, at least 3 px) or nothing matches.
    """
    reference = calibration.reference
    if reference is None or len(reference.points) < min_inliers:
        return CameraCheck(False, 0.0, 0, 0, "no reference features stored at calibration: cannot check")
    if _image_size(image) != tuple(calibration.image_size):
        return CameraCheck(True, math.inf, 0, 0, "the picture size changed since calibration")
    tolerance = tolerance_px if tolerance_px is not None else max(3.0, 0.004 * calibration.image_size[0])
    grey, scale = _feature_grey(image)
    keypoints, descriptors = _orb().detectAndCompute(grey, None)
    if descriptors is None or len(keypoints) < min_inliers:
        return CameraCheck(True, math.inf, 0, 0, "the view has almost no detail left (covered or moved camera)")
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(reference.descriptors, descriptors, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
    if len(good) < min_inliers:
        return CameraCheck(True, math.inf, len(good), 0, "the view no longer matches the calibration picture")
    src = reference.points[[m.queryIdx for m in good]].reshape(-1, 1, 2)
    dst = np.array([keypoints[m.trainIdx].pt for m in good], np.float32).reshape(-1, 1, 2)
    matrix, inlier_mask = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=2.5,
                                                      maxIters=2000, confidence=0.995)
    inliers = int(inlier_mask.sum()) if inlier_mask is not None else 0
    if matrix is None or inliers < min_inliers:
        return CameraCheck(True, math.inf, len(good), inliers, "the view no longer matches the calibration picture")
    corners = np.asarray(calibration.corners, np.float64) * reference.scale
    moved_to = corners @ matrix[:, :2].T + matrix[:, 2]
    shift = float(np.max(np.linalg.norm(moved_to - corners, axis=1)) / scale)
    moved = shift > tolerance
    reason = f"view shifted by {shift:.1f} px" if moved else f"view steady (shift {shift:.1f} px)"
    return CameraCheck(moved, shift, len(good), inliers, reason)


def camera_moved(calibration: Calibration, image: np.ndarray, **options: Any) -> bool:
    """True when the view has shifted since calibration (see `check_camera` for the score)."""
    return check_camera(calibration, image, **options).moved


# --------------------------------------------------------------------------- top-down views


def board_transform(calibration: Calibration, px_per_mm: float = 2.0,
                    margin_mm: float = 0.0) -> tuple[np.ndarray, tuple[int, int]]:
    """Homography image px -> canonical top-down px, and the canonical image size (w, h)."""
    if not px_per_mm > 0 or margin_mm < 0:
        raise ValueError("px_per_mm must be > 0 and margin_mm >= 0")
    to_canvas = np.array([[px_per_mm, 0, margin_mm * px_per_mm], [0, px_per_mm, margin_mm * px_per_mm], [0, 0, 1]])
    width = int(round((calibration.size_mm[0] + 2 * margin_mm) * px_per_mm))
    height = int(round((calibration.size_mm[1] + 2 * margin_mm) * px_per_mm))
    return to_canvas @ calibration.matrix, (width, height)


def warp_board(image: np.ndarray, calibration: Calibration, px_per_mm: float = 2.0, margin_mm: float = 0.0,
               interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The board or play area seen from straight above: (size_mm + 2 margin) * px_per_mm pixels."""
    matrix, size = board_transform(calibration, px_per_mm, margin_mm)
    return cv2.warpPerspective(image, matrix, size, flags=interpolation, borderMode=cv2.BORDER_REPLICATE)
