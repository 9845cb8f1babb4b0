"""Draws: who sits at which table and in which chair (RULES.md, "Decided (draws …)" and
"Decided (session draw …)"). :mod:`pipeline.draws.seating` holds the pure seating
algorithms; :mod:`pipeline.draws.service` reads the event, draws and stores."""

from pipeline.draws.service import (
    Draw,
    DrawRefused,
    cancel,
    current,
    draw_round,
    drawn_rounds,
    drawn_tables,
    history,
    next_to_play,
    waiting,
    waiting_rounds,
)

__all__ = [
    "Draw",
    "DrawRefused",
    "cancel",
    "current",
    "draw_round",
    "drawn_rounds",
    "drawn_tables",
    "history",
    "next_to_play",
    "waiting",
    "waiting_rounds",
]
