"""Record the golden corpus's expected outputs: run every command of ``corpus.py`` and write
``expected.json``.

    python tests/golden/record.py                       # from this checkout
    python tests/golden/record.py --checkout DIR        # from another checkout (its own code)
    python tests/golden/record.py --only ID [ID ...]    # re-record some commands, keep the rest

Record again only when a change is meant to alter what the tool says, and say why in the
commit.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_corpus():
    spec = importlib.util.spec_from_file_location("golden_corpus", HERE / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry_point(checkout: Path):
    """The command line's main of ``checkout``: the package's own, or the older top-level cli/."""
    sys.path.insert(0, str(checkout))
    import diffcompare
    if Path(diffcompare.__file__).resolve().parent != (checkout / "diffcompare").resolve():
        raise SystemExit(f"imported diffcompare from {diffcompare.__file__}, not from {checkout}")
    if (checkout / "diffcompare" / "cli" / "main.py").exists():
        from diffcompare.cli.main import main
    else:                                   # the layout before the CLI moved into the package
        from cli.main import main
    return main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=HERE.parents[1], help="the checkout whose code runs")
    parser.add_argument("--only", nargs="+", metavar="ID", help="re-record these commands only")
    args = parser.parse_args()
    corpus = load_corpus()
    run_main = entry_point(args.checkout.resolve())
    expected = json.loads(corpus.EXPECTED.read_text()) if args.only and corpus.EXPECTED.exists() else {}
    start = time.perf_counter()
    for cid, argv in corpus.COMMANDS:
        if args.only and cid not in args.only:
            continue
        expected[cid] = {"argv": argv, **corpus.run(run_main, argv)}
        print(f"{cid}: exit {expected[cid]['exit']}", file=sys.stderr)
    ordered = {cid: expected[cid] for cid, _ in corpus.COMMANDS if cid in expected}
    corpus.EXPECTED.write_text(json.dumps(ordered, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    corpus.MACHINE.write_text(json.dumps({"fingerprint": corpus.fingerprint()}) + "\n")
    print(f"{len(ordered)} commands in {time.perf_counter() - start:.1f} s -> {corpus.EXPECTED}", file=sys.stderr)


if __name__ == "__main__":
    main()
