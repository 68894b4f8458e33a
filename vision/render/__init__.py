"""Synthetic games-table renderer with exact ground truth.

Draws top-down "photographs" of a table for every game (cards, tiles, tokens, dice, boards),
in many printings, typefaces, tables, lights and camera conditions, with hands; and gives the
truth in the `companion recognize` JSON form. Used by the recognition tests, the accuracy
benchmarks, classifier training and the simulated camera of `companion serve`.

    rng = numpy.random.default_rng(1)
    scene = random_scene("elfer-raus", rng, pool="train")
    image, truth = render(scene)

Styles come in two disjoint pools ("train", "holdout"): typefaces, card designs, tables,
lights and board printings, so accuracy can be measured on styles never used in training.
"""

from __future__ import annotations

from .arrange import OVERRIDES, on_request, random_hand_over, random_scene
from .boards import BOARD_TEMPLATES, BoardStyle, board_templates, random_board_style
from .camera import Camera, CameraSpec
from .designs import (
    CARD_TEMPLATES,
    DIE_TEMPLATES,
    TILE_TEMPLATES,
    TOKEN_TEMPLATES,
    Design,
    all_designs,
    random_design,
    templates,
)
from .faces import default_heads, is_ambiguous, render_card
from .fonts import POOLS, Typeface, hershey_typefaces, typefaces
from .hands import HandSpec, random_hand
from .optics import LIGHTS, LightSpec, lights, random_camera, random_light
from .scene import DEFAULT_SIZE, GAMES, BoardPlacement, Item, Scene, render, render_static
from .sequence import Change, Frame, SequenceRenderer, place_card_changes
from .table import TABLES, TableSpec, random_table, tables


class StylePool:
    """The styles of one pool ("train" or "holdout"): names of everything that can be drawn."""

    def __init__(self, pool: str = "train"):
        from .fonts import check_pool

        self.name = check_pool(pool)

    @property
    def typefaces(self) -> list[Typeface]:
        return typefaces(self.name)

    @property
    def card_templates(self) -> list[str]:
        return templates("card", self.name)

    @property
    def tile_templates(self) -> list[str]:
        return templates("tile", self.name)

    @property
    def token_templates(self) -> list[str]:
        return templates("token", self.name)

    @property
    def die_templates(self) -> list[str]:
        return templates("die", self.name)

    @property
    def board_templates(self) -> list[str]:
        return board_templates("start11", self.name) + board_templates("numeri", self.name)

    @property
    def tables(self) -> list[str]:
        return tables(self.name)

    @property
    def lights(self) -> list[str]:
        return lights(self.name)

    def designs(self, count: int = 24, seed: int = 0) -> list[Design]:
        return all_designs(self.name, count, seed)

    def describe(self) -> dict:
        return {"pool": self.name, "typefaces": [t.name for t in self.typefaces], "card_templates": self.card_templates,
                "tile_templates": self.tile_templates, "token_templates": self.token_templates,
                "die_templates": self.die_templates, "board_templates": self.board_templates,
                "tables": self.tables, "lights": self.lights}


__all__ = [
    "BOARD_TEMPLATES",
    "CARD_TEMPLATES",
    "DEFAULT_SIZE",
    "DIE_TEMPLATES",
    "GAMES",
    "LIGHTS",
    "OVERRIDES",
    "POOLS",
    "TABLES",
    "TILE_TEMPLATES",
    "TOKEN_TEMPLATES",
    "BoardPlacement",
    "BoardStyle",
    "Camera",
    "CameraSpec",
    "Change",
    "Design",
    "Frame",
    "HandSpec",
    "Item",
    "LightSpec",
    "Scene",
    "SequenceRenderer",
    "StylePool",
    "TableSpec",
    "Typeface",
    "all_designs",
    "board_templates",
    "default_heads",
    "hershey_typefaces",
    "is_ambiguous",
    "lights",
    "on_request",
    "place_card_changes",
    "random_board_style",
    "random_camera",
    "random_design",
    "random_hand",
    "random_hand_over",
    "random_light",
    "random_scene",
    "random_table",
    "render",
    "render_card",
    "render_static",
    "tables",
    "templates",
    "typefaces",
]
