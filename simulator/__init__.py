"""The deal simulator: real block-domino hands played tile by tile, written as hand logs.

Three uses, one engine (``docs/simulator.md`` explains every decision):

* :func:`generate_frame` / :func:`write_event` with ``hands=None``: one realistic event.
  unhas: three rounds where each round seats the qualifiers of the previous one (as the
  product ranks them), 3-player tables, walkovers, sanctions, tie-break hands; pepet:
  three sessions of 12 players on 3 tables.
* the same with ``hands=N``: a benchmark corpus of about N hands. Playing ten million
  hands tile by tile in Python would take most of an hour, so a seeded *pool* of real deals is
  played tile by tile and the corpus is assembled from it with numpy and polars (events,
  rounds, tables, players, the unhas swap schedule, the winner leading the next hand).
  Every row is still a real deal.
* :func:`make_samples`: the bundled sample events in ``data/samples/`` (files as referees
  upload them: ``;`` or ``,``, Indonesian headers, a BOM, several tile notations, XLSX).
  ``python -m simulator samples data/samples`` regenerates them byte for byte.

Hands are played in *positions*: position 0 leads, then 1, 2, … in playing order (chairs
A→B→C→D, empty chairs skipped, starting at the leader's chair).

Modules: ``play`` (tiles and one hand), ``events`` (a table hand by hand, whole events,
hand-log rows), ``corpus`` (benchmark corpora from a pool of deals), ``files`` (writing
hand logs), ``samples`` (the bundled sample events). The names below are the API.
"""

from simulator.corpus import deal_pool, generate_frame
from simulator.events import Hand, deal, default_event, qualifiers, unhas_seating
from simulator.files import write_event
from simulator.play import (
    DOUBLE,
    DOUBLES,
    HI,
    LO,
    T33,
    TEXT,
    TILES,
    pepet_value,
    play_pepet,
    play_unhas,
    tiles_text,
    zero_zero_alone,
)
from simulator.samples import PEPET_EVENT, PEPET_GROUPS, UNHAS_EVENT, make_samples

__all__ = [
    "DOUBLE",
    "DOUBLES",
    "HI",
    "LO",
    "PEPET_EVENT",
    "PEPET_GROUPS",
    "T33",
    "TEXT",
    "TILES",
    "UNHAS_EVENT",
    "Hand",
    "deal",
    "deal_pool",
    "default_event",
    "generate_frame",
    "make_samples",
    "pepet_value",
    "play_pepet",
    "play_unhas",
    "qualifiers",
    "tiles_text",
    "unhas_seating",
    "write_event",
    "zero_zero_alone",
]
