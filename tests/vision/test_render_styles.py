"""Style pools, typefaces (with the Hershey fallback), canonical faces and the layout files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.layouts import LayoutError, load_layout
from vision.render import (
    GAMES,
    TABLES,
    StylePool,
    default_heads,
    is_ambiguous,
    random_design,
    random_scene,
    random_table,
    render,
    render_card,
    typefaces,
)
from vision.render import fonts as fonts_mod
from vision.render.table import table_texture


def test_train_and_holdout_pools_are_disjoint_and_not_empty():
    train, hold = StylePool("train").describe(), StylePool("holdout").describe()
    for key in ("card_templates", "tile_templates", "token_templates", "die_templates", "board_templates", "tables",
                "lights", "typefaces"):
        assert train[key] and hold[key], key
        assert not set(train[key]) & set(hold[key]), key
    fam = lambda faces: {f.family.split()[0].lower() for f in faces}  # noqa: E731
    assert not fam(StylePool("train").typefaces) & fam(StylePool("holdout").typefaces)


def test_pool_names_are_checked():
    with pytest.raises(ValueError, match="pool"):
        StylePool("test")
    with pytest.raises(ValueError, match="pool"):
        random_scene("elfer-raus", np.random.default_rng(0), pool="validation")


def test_designs_draw_only_from_their_pool():
    rng = np.random.default_rng(3)
    hold = StylePool("holdout")
    for _ in range(10):
        d = random_design(rng, "holdout")
        assert d.template in hold.card_templates and d.tile_template in hold.tile_templates
        assert d.typeface in hold.typefaces


def test_unknown_game_and_override_are_refused():
    with pytest.raises(ValueError, match="unknown game"):
        random_scene("chess", np.random.default_rng(0))
    with pytest.raises(TypeError, match="override"):
        random_scene("numeri", np.random.default_rng(0), zoom=2)


@pytest.mark.parametrize("card", [
    {"kind": "number", "value": 7, "color": "red"},
    {"kind": "number", "value": 66, "color": None},
    {"kind": "bull", "value": None, "color": None},
    {"kind": "joker", "value": None, "color": None},
    {"kind": "link", "value": None, "color": None},
    {"kind": "bonus", "value": None, "color": None},
    {"object": "tile", "kind": "joker", "value": 13, "color": "gray"},
    {"object": "tile", "kind": "symbol", "value": "star", "color": None},
    {"object": "token", "value": 4, "color": "blue"},
    {"object": "die", "value": "star"},
    {"object": "die", "value": 6},
])
def test_render_card_gives_an_opaque_face_with_transparent_corners(card):
    d = random_design(np.random.default_rng(1), "train")
    img = render_card(card, d, 160)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 4 and img.shape[0] == 160
    h, w = img.shape[:2]
    assert img[h // 2, w // 2, 3] == 255
    assert img[0, 0, 3] < 128  # rounded corner (or outside the disc)
    assert img[..., :3].std() > 5  # something is printed on it


def test_ink_of_a_suit_is_its_colour():
    """The numeral of a red card is red-ish and of a blue card blue-ish (printed, not pure RGB)."""
    d = random_design(np.random.default_rng(2), "train", template="minimal")
    for colour, channel in (("red", 2), ("blue", 0)):
        img = render_card({"kind": "number", "value": 8, "color": colour}, d, 200)[..., :3].astype(int)
        ink = img[img.sum(axis=2) < 450]
        assert len(ink) > 50
        assert np.median(ink[:, channel]) > np.median(ink[:, 1])


def test_6_and_9_are_marked_as_ambiguous_but_not_others():
    assert is_ambiguous(6, 21) and is_ambiguous(9, 21)
    assert not any(is_ambiguous(v, 21) for v in (1, 8, 10, 11, 16, 18, 19, 21))
    assert is_ambiguous(16, 100) and is_ambiguous(66, 100) and not is_ambiguous(88, 100)


def test_default_head_table_matches_the_rules():
    heads = [default_heads(v) for v in range(1, 101)]
    assert sum(heads) == 184
    assert default_heads(3) == 7 and default_heads(53) == 5 and default_heads(97) == 3 and default_heads(4) == 1


def test_hershey_fallback_without_truetype_fonts(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_FONT_DIRS", str(tmp_path))  # an empty folder: no fonts at all
    for pool in ("train", "holdout"):
        faces = typefaces(pool)
        assert faces and all(f.path is None and f.hershey is not None for f in faces)
    d = random_design(np.random.default_rng(0), "train")
    assert d.typeface.path is None
    card = render_card({"kind": "number", "value": 12, "color": "green"}, d, 120)
    assert card[..., :3].std() > 5
    img, truth = render(random_scene("elfer-raus", np.random.default_rng(0), size=(410, 308), hand=False))
    assert img.shape == (308, 410, 3) and truth["cards"]


def test_without_pillow_text_still_renders(monkeypatch):
    monkeypatch.setattr(fonts_mod, "ImageFont", None)
    face = typefaces("train")[0]
    hershey = fonts_mod.Typeface(name="H", family="H", path=None, hershey=0)
    assert fonts_mod.text_mask("47", hershey, 40).max() > 0.9
    assert face is not None


def test_every_game_renders_in_the_holdout_pool():
    for game in GAMES:
        img, truth = render(random_scene(game, np.random.default_rng(9), "holdout", size=(410, 308)))
        assert img.shape == (308, 410, 3)
        assert truth["styles"]["pool"] == "holdout"


# ----------------------------------------------------------------------------------------
# Layout files


def test_bundled_layouts_load():
    s11 = load_layout("start11")
    assert len(s11.squares) == 88 and len([b for b in s11.bridges if b.bonus]) == 4
    assert s11.square("blue-7").kind == "joker" and s11.square("red-left").kind == "symbol"
    num = load_layout("numeri")
    assert len(num.squares) == 37 and [q.value for q in num.squares[-3:]] == [20, 25, 30]
    assert num.barriers == {2: 8, 3: 10, 4: 12}


def _broken(tmp_path: Path, game: str, old: str, new: str) -> Path:
    src = Path(load_layout(game).path).read_text(encoding="utf-8")
    assert old in src
    p = tmp_path / f"{game}.toml"
    p.write_text(src.replace(old, new, 1), encoding="utf-8")
    return p


@pytest.mark.parametrize(("game", "old", "new", "expect"), [
    ("start11", '{ id = "yellow-3", x = 120.0', '{ id = "yellow-3", x = "far"', r"yellow-3.*x must be a number"),
    ("start11", 'id = "red-5"', 'id = "purple-5"', r"purple-5.*unknown row colour"),
    ("start11", '{ id = "green-20", x = 528.0, y = 253.0 },', "", r"missing green-20"),
    ("start11", 'number = 13, bonus = true', 'number = 13, bonus = "yes"', r"bridges\[1\]\.bonus"),
    ("start11", 'rows = ["yellow", "red"], number = 3', 'rows = ["yellow", "blue"], number = 3',
     r"bridges\[0\].*not neighbours"),
    ("numeri", 'value = 25, kind = "end"', 'value = 25, kind = "finish"', r"squares\[35\]\.kind"),
    ("numeri", "3 = 10", "3 = 99", r"barriers\.3"),
    ("numeri", "index = 4,", "index = 5,", r"squares\[4\].*out of order"),
])
def test_broken_layout_files_name_file_and_entry(tmp_path, game, old, new, expect):
    p = _broken(tmp_path, game, old, new)
    with pytest.raises(LayoutError, match=expect) as err:
        load_layout(game, p)
    assert str(p) in str(err.value)


def test_unreadable_layout_files(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("squares = [", encoding="utf-8")
    with pytest.raises(LayoutError, match="not valid TOML"):
        load_layout("numeri", bad)
    with pytest.raises(LayoutError, match="cannot read"):
        load_layout("numeri", tmp_path / "missing.toml")
    with pytest.raises(LayoutError, match="no board layout"):
        load_layout("elevens")


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_surface_renders_in_range(name):
    spec = random_table(np.random.default_rng(5), TABLES[name][1], name=name)
    img, gloss = table_texture(spec, 120, 160, 1.5)
    assert img.shape == (120, 160, 3) and img.dtype == np.float32
    assert np.isfinite(img).all() and img.min() >= 0.0 and img.max() <= 1.0
    assert 0.0 <= gloss <= 1.0
    again, _ = table_texture(spec, 120, 160, 1.5)
    assert np.array_equal(img, again)  # a table looks the same in every frame


def test_some_table_families_are_only_in_the_holdout_pool():
    """Recognition is measured on kinds of surface never trained on (dots, marble, cork)."""
    fam = {pool: {f for f, p in TABLES.values() if p == pool} for pool in ("train", "holdout")}
    assert {"dots", "marble", "cork"} <= fam["holdout"] - fam["train"]


def test_a_printing_drawn_on_request_is_never_drawn_at_random():
    """The facsimile 11! printing (squares printed like tiles' faces) is for the board readers'
    training scenes only: the pools' random draws, and so every held-out scene, stay as they were."""
    from vision.render import random_board_style
    from vision.render.boards import ON_REQUEST

    rng = np.random.default_rng(5)
    drawn = {random_board_style(rng, "start11", pool).template for pool in ("train", "holdout") for _ in range(60)}
    assert drawn and not drawn & set(ON_REQUEST)
    style = random_board_style(rng, "start11", "train", template="facsimile")
    assert style.square_style == "facsimile" and style.stock is not None
    with pytest.raises(ValueError, match="facsimile"):
        random_board_style(rng, "start11", "holdout", template="facsimile")
    with pytest.raises(ValueError, match="facsimile"):
        random_board_style(rng, "numeri", "train", template="facsimile")


def test_the_varied_printing_draws_each_square_as_its_style_says():
    """The varied 11! printing (train scenes on request) spans square styles, frames and tints:
    an outlined square is its row's ink round its inside colour, a tinted one the row's ink mixed
    into white by its tint."""
    from vision.layouts import load_layout
    from vision.render import random_board_style
    from vision.render.boards import board_image

    layout = load_layout("start11")
    styles = [random_board_style(np.random.default_rng([8, k]), "start11", "train", template="varied")
              for k in range(40)]
    assert {s.square_style for s in styles} == {"filled", "tinted", "outlined"}
    assert len({s.number_ink for s in styles}) == 3 and len({round(s.line, 2) for s in styles}) > 5
    sq = next(q for q in layout.squares if q.kind == "number")
    s = 4.0
    outlined = max((st for st in styles if st.square_style == "outlined"),
                   key=lambda st: abs(np.subtract(st.inner, 0.97)).max())  # the farthest from the held-out look
    tinted = max((st for st in styles if st.square_style == "tinted"), key=lambda st: abs(st.tint - 0.45))
    for style in (outlined, tinted):
        img, _ = board_image(layout, style, s)
        ink = np.array(style.ink(sq.row))
        half = layout.square_mm / 2
        inside = img[int((sq.y - 0.75 * half) * s), int((sq.x - 0.6 * half) * s)]  # clear of the numeral
        if style.square_style == "outlined":
            frame = img[int(sq.y * s), int((sq.x - half + 0.5 * style.line * layout.square_mm) * s)]
            np.testing.assert_allclose(frame, ink, atol=0.08)
            np.testing.assert_allclose(inside, style.inner, atol=0.08)
        else:
            np.testing.assert_allclose(inside, 1.0 - style.tint * (1.0 - ink), atol=0.08)


def test_the_any_stock_tile_family_is_drawn_only_on_request_and_spans_materials():
    """Train scenes on request (board_scenes --tiles any-stock): white to tan or grey stocks, plain,
    grained or mottled; the pools' random designs never draw it."""
    from vision.render.designs import TILE_ON_REQUEST, any_stock_tile
    from vision.render.draw import luminance
    from vision.render.faces import _tile

    rng = np.random.default_rng(11)
    assert not {random_design(rng, pool).tile_template for pool in ("train", "holdout") for _ in range(30)} \
        & set(TILE_ON_REQUEST)
    from vision.render import on_request

    with pytest.raises(ValueError, match="no tile family 'wood'"):
        on_request(random_scene("start11", np.random.default_rng(1), "train", hand=False), rng, tiles="wood")
    designs = [any_stock_tile(random_design(rng, "train"), rng) for _ in range(40)]
    assert {d.tile_template for d in designs} == {"any-stock"}
    assert {d.tile_texture for d in designs} == {"none", "grain", "mottle"}
    assert min(luminance(d.tile_colour) for d in designs) < 0.8 < max(luminance(d.tile_colour) for d in designs)
    spread = [float(np.ptp(d.tile_colour)) for d in designs]  # tinted stocks (wood, cream) and neutral ones
    assert min(spread) < 0.03 and max(spread) > 0.2
    card = {"kind": "number", "value": 1, "color": "blue"}
    for texture in ("grain", "mottle"):
        d = next(x for x in designs if x.tile_texture == texture)
        rough, _ = _tile(card, d, 96, 96)
        plain, _ = _tile(card, replace(d, tile_texture="none"), 96, 96)
        band = (slice(30, 66), slice(9, 24))  # stock left of the numeral, inside the bevel
        assert rough[band].mean(axis=2).std() > 1.5 * plain[band].mean(axis=2).std()  # lightness varies


def test_the_card_families_are_drawn_only_on_request_legibly_and_without_held_out_elements():
    """Train scenes on request (scenes --cards any-stock|mixed): stocks from white to grey or tan,
    inks beyond the pools' ranges; "mixed" combines the train templates' elements freely, never
    the held-out templates' own, and keeps every corner index legible on a coloured band or frame."""
    from vision.render import on_request
    from vision.render.designs import CARD_ON_REQUEST, CARD_TEMPLATES, any_stock_card, mixed_card
    from vision.render.draw import luminance

    rng = np.random.default_rng(12)
    assert not {random_design(rng, pool).template for pool in ("train", "holdout") for _ in range(30)} \
        & set(CARD_ON_REQUEST)
    scene = random_scene("elevens", np.random.default_rng(2), "train", hand=False)
    with pytest.raises(ValueError, match="no card family 'gold'"):
        on_request(scene, rng, cards="gold")
    before = scene.design
    on_request(scene, rng, cards="mixed")
    assert scene.design.template == "mixed"
    assert (scene.design.card_w, scene.design.card_h) == (before.card_w, before.card_h)  # the layout still fits

    stocks = [any_stock_card(random_design(rng, "train"), rng).stock for _ in range(40)]
    assert min(luminance(s) for s in stocks) < 0.85 < max(luminance(s) for s in stocks)
    mixed = [mixed_card(random_design(rng, "train"), rng) for _ in range(80)]
    held_out = {"corner_blocks", "gradient", "edge_stripe", "diagonal", "hollow", "inverse"}
    assert CARD_TEMPLATES["corner-blocks"] == "holdout"
    assert len({d.background for d in mixed}) >= 6 and len({d.numeral_style for d in mixed}) >= 5
    assert not {d.background for d in mixed} & held_out and not {d.numeral_style for d in mixed} & held_out
    assert {d.indices for d in mixed} == {"tl_br", "four", "none"}

    card = {"kind": "number", "value": 7, "color": "blue"}
    inked = [d for d in mixed if d.indices != "none" and d.index_style == "plain"
             and (d.background in ("solid", "bands") or d.frame == "thick")]
    assert len(inked) >= 5
    for d in inked:
        img = render_card(card, d, 240)[..., :3].astype(np.float32).mean(axis=2)
        h, w = img.shape
        corner = img[int(0.03 * h):int(0.03 * h + 0.2 * h), int(0.04 * w):int(0.04 * w + 0.2 * w)]
        assert np.ptp(corner) > 60, d.name  # the index stands out from the band or frame it is printed on
