"""``python -m simulator samples DIR``: regenerate the bundled samples."""

import sys
from pathlib import Path

from simulator.samples import make_samples


def main(argv: list[str] | None = None) -> int:
    """``python -m simulator samples DIR``: regenerate the bundled samples."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "samples":
        print("usage: python -m simulator samples data/samples", file=sys.stderr)
        return 2
    for rs, paths in make_samples(Path(args[1])).items():
        print(f"{rs}: wrote {len(paths)} file(s) to {Path(args[1]) / rs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
