"""Writing generated events as hand-log files (``domino generate``)."""

from pathlib import Path

import polars as pl

from pipeline import rulesets
from simulator.corpus import corpus_chunks, generate_frame

# --- writing hand logs -----------------------------------------------------------------------

PER_FILE = ("table", "round", "one")


def _file_key(per_file: str) -> list[str]:
    return {"table": ["event", "round", "table"], "round": ["event", "round"], "one": []}[per_file]


def _file_name(key: tuple[str, ...], base: str) -> str:
    if len(key) == 3:
        return f"{key[0]}_{key[1]}_meja{key[2]}.csv"
    if len(key) == 2:
        return f"{key[0]}_{key[1]}.csv"
    return f"{base}.csv"


def _write_parts(frame: pl.DataFrame, per_file: str, out_dir: Path, base: str) -> list[Path]:
    keys = _file_key(per_file)
    parts = frame.partition_by(keys, as_dict=True, maintain_order=True) if keys else {(): frame}
    paths = []
    for key, part in parts.items():
        path = out_dir / _file_name(tuple(str(k) for k in key), base)
        part.write_csv(path)
        paths.append(path)
    return paths


def write_event(
    *,
    ruleset: str,
    seed: int,
    event: str | None = None,
    hands: int | None = None,
    out_dir: Path,
    per_file: str = "table",
) -> list[Path]:
    """Write generated hand logs as plain ``,`` CSV (nothing needs quoting, so the
    product's fast reader applies): one file per table, per round, or one file.

    A corpus (``hands=N``) is generated and written a chunk of whole events at a time,
    so ten million hands need no more memory than one million.
    """
    if per_file not in PER_FILE:
        raise ValueError(f"per_file must be one of {', '.join(PER_FILE)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = event or f"{ruleset}-sim-{seed}"
    if hands is None:
        return _write_parts(generate_frame(ruleset, seed, None, event), per_file, out_dir, base)
    if ruleset not in rulesets.names():
        raise ValueError(f"unknown ruleset {ruleset!r}; use one of {', '.join(rulesets.names())}")
    paths: list[Path] = []
    if per_file == "one":
        path = out_dir / f"{base}.csv"
        with path.open("wb") as fh:
            for i, chunk in enumerate(corpus_chunks(ruleset, seed, hands, event)):
                chunk.write_csv(fh, include_header=i == 0)
        return [path]
    for chunk in corpus_chunks(ruleset, seed, hands, event):
        paths.extend(_write_parts(chunk, per_file, out_dir, base))
    return paths
