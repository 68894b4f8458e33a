"""Light and camera: illumination fields, glare, shadows' direction, and the sensor pipeline
(perspective, lens distortion, blur, vignetting, exposure, white balance, sharpening, noise,
JPEG). Lighting presets are named and split into the train and holdout pools.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .camera import Camera, CameraSpec
from .fonts import check_pool

# name -> pool
LIGHTS: dict[str, str] = {
    "daylight-window": "train",
    "warm-lamp": "train",
    "ceiling-fluorescent": "train",
    "overcast": "train",
    "led-panel": "train",
    "evening-mixed": "train",
    "halogen-spot": "holdout",
    "dim-kitchen": "holdout",
    "north-window": "holdout",
    "two-lamps": "holdout",
}


@dataclass(frozen=True)
class LightSpec:
    name: str
    temp_k: float  # colour temperature of the light
    wb_k: float  # what the camera's white balance assumed
    level: float  # overall brightness of the scene (1 = well exposed)
    ambient: float  # share of diffuse light: 1 = no cast shadows
    azimuth_deg: float  # where the key light comes from (table frame, 0 = +X)
    elevation_deg: float  # height of the key light above the horizon
    softness: float  # shadow blur per mm of height (mm)
    gradient: tuple[float, float, float]  # (dx, dy, strength): linear fall-off across the view
    spot: tuple[float, float, float, float]  # (x, y, radius, strength) in view fractions; strength 0 = none
    glare: tuple[tuple[float, ...], ...]  # (x, y, rx, ry, angle_deg, strength) in view fractions
    second: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (azimuth, elevation, share) of a second lamp


def lights(pool: str) -> list[str]:
    check_pool(pool)
    return [n for n, p in LIGHTS.items() if p == pool]


def random_light(rng: np.random.Generator, pool: str = "train", name: str | None = None) -> LightSpec:
    name = name if name is not None else str(rng.choice(lights(pool)))
    if name not in LIGHTS:
        raise ValueError(f"unknown light {name!r}; expected one of {sorted(LIGHTS)}")
    u = rng.uniform
    az = float(u(0, 360))

    def glare(n_max: int, strength: tuple[float, float], streak: float = 0.0):
        out = []
        for _ in range(int(rng.integers(0, n_max + 1))):
            if rng.random() < streak:
                out.append((u(0.1, 0.9), u(0.1, 0.9), u(0.15, 0.4), u(0.01, 0.03), u(0, 180), u(*strength)))
            else:
                r = u(0.04, 0.14)
                out.append((u(0.1, 0.9), u(0.1, 0.9), r, r * u(0.6, 1.0), u(0, 180), u(*strength)))
        return tuple(out)

    side = (math.cos(math.radians(az)), math.sin(math.radians(az)))
    anyway = (u(-1, 1), u(-1, 1))
    none = (0.5, 0.5, 1.0, 0.0)

    def spot(lo: float, hi: float, r: tuple[float, float], st: tuple[float, float]):
        return (u(lo, hi), u(lo, hi), u(*r), u(*st))

    # name: temp_k, wb_k, level, ambient, elevation_deg, softness, gradient, spot, glare
    table = {
        "daylight-window": ((5200, 6800), (5000, 6500), (0.95, 1.15), (0.55, 0.8), (25, 50), (0.15, 0.35),
                            (*side, u(0.15, 0.4)), none, glare(1, (0.1, 0.35))),
        "warm-lamp": ((2500, 3200), (3000, 5000), (0.85, 1.1), (0.35, 0.6), (50, 80), (0.05, 0.15), (0, 0, 0.0),
                      spot(0.3, 0.7, (0.5, 0.9), (0.35, 0.6)), glare(2, (0.2, 0.6))),
        "ceiling-fluorescent": ((3800, 4500), (4000, 5000), (0.9, 1.1), (0.65, 0.85), (60, 85), (0.2, 0.4),
                                (*anyway, u(0.05, 0.15)), none, glare(2, (0.2, 0.5), streak=0.7)),
        "overcast": ((6000, 7500), (5500, 7000), (0.8, 1.0), (0.8, 0.95), (40, 70), (0.4, 0.8),
                     (*anyway, u(0.05, 0.2)), none, ()),
        "led-panel": ((4800, 5600), (4800, 5600), (1.0, 1.2), (0.6, 0.8), (65, 88), (0.2, 0.35), (0, 0, 0.0),
                      spot(0.4, 0.6, (0.8, 1.2), (0.1, 0.2)), glare(1, (0.3, 0.7))),
        "evening-mixed": ((3000, 3800), (4500, 5500), (0.6, 0.85), (0.45, 0.7), (30, 60), (0.1, 0.25),
                          (*side, u(0.2, 0.45)), spot(0.2, 0.8, (0.6, 1.0), (0.2, 0.4)), glare(1, (0.1, 0.3))),
        "halogen-spot": ((2900, 3300), (3200, 4200), (1.0, 1.25), (0.25, 0.45), (55, 80), (0.03, 0.1), (0, 0, 0.0),
                         spot(0.3, 0.7, (0.35, 0.6), (0.5, 0.75)), glare(2, (0.4, 0.9))),
        "dim-kitchen": ((3200, 4200), (3500, 5000), (0.45, 0.7), (0.6, 0.8), (45, 75), (0.2, 0.4),
                        (*anyway, u(0.1, 0.3)), none, glare(1, (0.1, 0.25))),
        "north-window": ((7000, 9000), (5000, 6000), (0.8, 1.0), (0.7, 0.9), (20, 40), (0.3, 0.6),
                         (*side, u(0.25, 0.5)), none, ()),
        "two-lamps": ((2800, 3600), (3200, 4500), (0.9, 1.1), (0.35, 0.55), (45, 70), (0.05, 0.15), (0, 0, 0.0),
                      spot(0.2, 0.8, (0.6, 1.0), (0.2, 0.4)), glare(2, (0.2, 0.6))),
    }
    temp, wb, level, ambient, elev, soft, gradient, spot_, glare_ = table[name]
    second = (float((az + u(120, 240)) % 360), u(45, 70), u(0.3, 0.5)) if name == "two-lamps" else (0.0, 0.0, 0.0)
    return LightSpec(name=name, temp_k=u(*temp), wb_k=u(*wb), level=u(*level), ambient=u(*ambient),
                     azimuth_deg=az, elevation_deg=u(*elev), softness=u(*soft),
                     gradient=tuple(float(x) for x in gradient), spot=tuple(float(x) for x in spot_),
                     glare=glare_, second=second)


def random_camera(rng: np.random.Generator, view_w_mm: float, **overrides) -> CameraSpec:
    """A plausible Pi camera above the table: small tilt, some blur, noise, compression."""
    u = rng.uniform
    level = rng.random()
    spec = {
        "height_mm": float(u(600, 1000)),
        "view_w_mm": float(view_w_mm),
        "tilt_x_deg": float(rng.normal(0, 2.5)),
        "tilt_y_deg": float(rng.normal(0, 2.5)),
        "roll_deg": float(rng.normal(0, 1.5)),
        "k1": float(u(-0.02, 0.06)) if rng.random() < 0.6 else 0.0,
        "focus_sigma": float(u(0.3, 1.1)) if level < 0.85 else float(u(1.1, 2.2)),
        "motion_px": float(u(1.5, 5.0)) if rng.random() < 0.08 else 0.0,
        "motion_deg": float(u(0, 180)),
        "noise": float(u(0.004, 0.02)),
        "shot": float(u(0.005, 0.03)),
        "jpeg_quality": int(rng.integers(55, 96)) if rng.random() < 0.75 else None,
        "exposure_ev": float(rng.normal(0, 0.2)),
        "wb_error": tuple(float(x) for x in (1.0 + rng.normal(0, 0.03, 3))),
        "vignette": float(u(0.0, 0.35)),
        "gamma": float(u(0.9, 1.15)),
        "sharpen": float(u(0.2, 0.8)) if rng.random() < 0.5 else 0.0,
        "chroma_px": float(u(0.3, 1.2)) if rng.random() < 0.25 else 0.0,
    }
    spec.update(overrides)
    return CameraSpec(**spec)


# ----------------------------------------------------------------------------------------
# Colour of light


def kelvin_rgb(k: float) -> np.ndarray:
    """Approximate sRGB colour (BGR order, 0..1) of a black body at k kelvin."""
    t = k / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * ((t - 60) ** -0.1332047592)
        g = 288.1221695283 * ((t - 60) ** -0.0755148492)
        b = 255.0
    return np.clip(np.array([b, g, r]) / 255.0, 0.05, 1.0)


def light_cast(spec: LightSpec) -> np.ndarray:
    """BGR gains of the light as the camera records it after its (imperfect) white balance."""
    c = kelvin_rgb(spec.temp_k) / kelvin_rgb(spec.wb_k)
    return (c / c[1]).astype(np.float32)


def shadow_vector(azimuth_deg: float, elevation_deg: float) -> tuple[float, float]:
    """Shadow displacement on the table per mm of height (table frame)."""
    a = math.radians(azimuth_deg)
    k = 1.0 / math.tan(math.radians(max(5.0, elevation_deg)))
    return (-math.cos(a) * k, -math.sin(a) * k)


# ----------------------------------------------------------------------------------------
# Fields on the canvas


def illumination(spec: LightSpec, cam: Camera) -> np.ndarray:
    """Low-frequency light level (H×W float32) on the canvas; its colour is applied in `develop`."""
    h, w = cam.canvas_h, cam.canvas_w
    sh, sw = max(8, h // 8), max(8, w // 8)
    ys, xs = np.meshgrid(np.linspace(0, 1, sh, dtype=np.float32), np.linspace(0, 1, sw, dtype=np.float32),
                         indexing="ij")
    g = np.ones((sh, sw), np.float32)
    dx, dy, st = spec.gradient
    if st:
        n = math.hypot(dx, dy) or 1.0
        g += float(st) * (((xs - 0.5) * dx + (ys - 0.5) * dy) / n)
    x0, y0, rad, sst = spec.spot
    if sst:
        d2 = ((xs - x0) ** 2 + ((ys - y0) * h / max(w, 1)) ** 2) / (rad * rad)
        g *= (1.0 - float(sst)) + float(sst) * np.exp(-d2 * 1.6) * 1.35
    g = np.clip(g, 0.15, 2.0) * float(spec.level)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def mul_plane(img: np.ndarray, plane: np.ndarray) -> np.ndarray:
    """img (H×W×3 float32) *= plane (H×W), in place (OpenCV: much faster than NumPy broadcasting)."""
    cv2.multiply(img, cv2.merge([plane, plane, plane]), dst=img)
    return img


def glare_field(spec: LightSpec, cam: Camera) -> np.ndarray | None:
    """Specular highlights (H×W float32) before multiplication by surface gloss."""
    if not spec.glare:
        return None
    h, w = cam.canvas_h, cam.canvas_w
    sh, sw = max(8, h // 4), max(8, w // 4)
    ys, xs = np.meshgrid(np.arange(sh, dtype=np.float32), np.arange(sw, dtype=np.float32), indexing="ij")
    out = np.zeros((sh, sw), np.float32)
    for x, y, rx, ry, ang, st in spec.glare:
        a = math.radians(ang)
        ca, sa = math.cos(a), math.sin(a)
        u = (xs - x * sw) * ca + (ys - y * sh) * sa
        v = -(xs - x * sw) * sa + (ys - y * sh) * ca
        out += float(st) * np.exp(-((u / (rx * sw)) ** 2 + (v / (ry * sw)) ** 2) * 2.0)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR)


# ----------------------------------------------------------------------------------------
# Sensor pipeline


@lru_cache(maxsize=4)
def _radial(w: int, h: int) -> np.ndarray:
    ys, xs = np.meshgrid(np.linspace(-1, 1, h, dtype=np.float32), np.linspace(-1, 1, w, dtype=np.float32),
                         indexing="ij")
    r2 = (xs * xs * (w / max(w, h)) ** 2 + ys * ys * (h / max(w, h)) ** 2) / 0.5
    return (np.clip(r2, 0, 2) ** 1.2 * 0.6).astype(np.float32)


def gain_map(cam: Camera) -> np.ndarray:
    """Image-space gain (H×W float32): vignetting × exposure (white-balance error applied apart)."""
    s = cam.spec
    g = np.float32(2.0 ** s.exposure_ev)
    return (np.float32(1.0) - np.float32(s.vignette) * _radial(cam.w, cam.h)) * g


def develop(canvas: np.ndarray, cam: Camera, cast: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Canvas radiance (float BGR) -> (uint8 image as the sensor and ISP deliver it before noise,
    the auto-exposure gain that was applied). `cast`: BGR colour of the light as recorded."""
    s = cam.spec
    maps = cam.canvas_maps()
    if maps is None:
        img = cv2.warpPerspective(canvas, cam.H0, (cam.w, cam.h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    else:
        img = cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if s.chroma_px > 0:
        img = _chromatic(img, cam, s.chroma_px)
    img = blur(img, s)
    mul_plane(img, gain_map(cam))
    colour = np.asarray(s.wb_error, np.float32) * (cast if cast is not None else np.float32(1.0))
    ae = ae_gain(img, s, colour)
    gains = (colour * np.float32(ae)).astype(np.float32)
    cv2.multiply(img, (float(gains[0]), float(gains[1]), float(gains[2]), 0.0), dst=img)
    return tone(img, s), ae


def ae_gain(img: np.ndarray, s: CameraSpec, colour: np.ndarray | None = None) -> float:
    """Auto-exposure: pull the mean brightness toward mid-grey (dark tables over-expose white cards)."""
    if s.auto_exposure <= 0:
        return 1.0
    sample = img[::8, ::8]
    mean = float((sample * (colour if colour is not None else 1.0)).mean())
    target = 0.42
    return float(np.clip(target / max(mean, 1e-3), 0.55, 2.2) ** s.auto_exposure)


def blur(img: np.ndarray, s: CameraSpec) -> np.ndarray:
    if s.focus_sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), s.focus_sigma)
    if s.motion_px > 0.5:
        img = cv2.filter2D(img, -1, motion_kernel(s.motion_px, s.motion_deg))
    return img


def motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    for t in np.linspace(-length / 2, length / 2, max(3, n * 3)):
        k[int(round(c + t * math.sin(a))), int(round(c + t * math.cos(a)))] += 1
    return k / k.sum()


def _curve(img: np.ndarray, s: CameraSpec, gamma: bool = True) -> np.ndarray:
    """Contrast curve: clip, soft shoulder above 0.85 (glare rolls off), gamma."""
    x = np.clip(img, 0.0, 4.0)
    hot = x > 0.85
    if hot.any():
        x[hot] = 0.85 + 0.15 * (1.0 - np.exp(-(x[hot] - 0.85) / 0.15))
    if gamma and abs(s.gamma - 1.0) > 1e-3:
        x = np.power(x, np.float32(1.0 / s.gamma))
    return x


@lru_cache(maxsize=16)
def _gamma_lut(g_milli: int) -> np.ndarray:
    return np.clip(np.round(255.0 * (np.arange(256) / 255.0) ** (1000.0 / g_milli)), 0, 255).astype(np.uint8)


def tone(img: np.ndarray, s: CameraSpec) -> np.ndarray:
    """Float radiance -> uint8 with the camera's contrast curve and ISP sharpening."""
    out = cv2.convertScaleAbs(_curve(img, s, gamma=False), alpha=255.0)
    if abs(s.gamma - 1.0) > 1e-3:
        out = cv2.LUT(out, _gamma_lut(int(round(s.gamma * 1000))))
    if s.sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 1.2)
        out = cv2.addWeighted(out, 1.0 + s.sharpen, soft, -s.sharpen, 0)
    return out


def tone_float(img: np.ndarray, s: CameraSpec) -> np.ndarray:
    """Same curve as `tone` without quantising or sharpening (for layers composited later)."""
    return _curve(img, s) * np.float32(255.0)


def _chromatic(img: np.ndarray, cam: Camera, px: float) -> np.ndarray:
    """Lateral chromatic aberration: red and blue scaled a hair apart about the centre."""
    k = px / (math.hypot(cam.w, cam.h) / 2.0)
    out = img.copy()
    for ch, f in ((0, 1.0 - k), (2, 1.0 + k)):
        m = np.array([[f, 0, cam.cx * (1 - f)], [0, f, cam.cy * (1 - f)]], np.float32)
        out[..., ch] = cv2.warpAffine(img[..., ch], m, (cam.w, cam.h), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE)
    return out


class NoiseBank:
    """Pre-drawn Gaussian noise, cropped at random offsets: cheap per-frame sensor noise."""

    def __init__(self, w: int, h: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.w, self.h = w, h
        self.pad = 64
        self.bank = rng.standard_normal((h + self.pad, w + self.pad, 3), dtype=np.float32)

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        ox, oy = int(rng.integers(0, self.pad)), int(rng.integers(0, self.pad))
        return self.bank[oy:oy + self.h, ox:ox + self.w]


@lru_cache(maxsize=4)
def noise_bank(w: int, h: int) -> NoiseBank:
    return NoiseBank(w, h, seed=w * 7919 + h)


def add_noise(img: np.ndarray, s: CameraSpec, rng: np.random.Generator, bank: NoiseBank | None = None) -> np.ndarray:
    """Read + shot noise (brighter pixels noisier) on a uint8 image; returns a new uint8 image."""
    if s.noise <= 0 and s.shot <= 0:
        return img
    h, w = img.shape[:2]
    n = (bank or noise_bank(w, h)).sample(rng)
    lut = (s.noise * 255.0 + s.shot * 16.0 * np.sqrt(np.arange(256) / 255.0 + 1e-3)) * 8.0
    sigma8 = cv2.LUT(img, np.clip(lut, 0, 255).astype(np.uint8))
    noise = cv2.multiply(n, sigma8, dtype=cv2.CV_32F, scale=1.0 / 8.0)
    return cv2.add(img, noise, dtype=cv2.CV_8U)


def add_noise_fast(img: np.ndarray, s: CameraSpec, rng: np.random.Generator, bank: NoiseBank) -> np.ndarray:
    """Signal-independent approximation for live frames (one fused multiply-add)."""
    n = bank.sample(rng)
    sigma = float(s.noise * 255.0 + s.shot * 10.0)
    return cv2.scaleAdd(n, sigma, img.astype(np.float32)).clip(0, 255).astype(np.uint8)


def jpeg(img: np.ndarray, quality: int | None) -> np.ndarray:
    if quality is None:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes uint8 BGR
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
